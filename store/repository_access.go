package store

import (
	"context"
	"time"

	"docsd/internal/errs"
)

// What the repository access secrets are bound to (GCM additional data).
const (
	aadSSHPrivateKey     = "project_ssh_keys.private_key"
	aadRepoCredsUsername = "project_repository_credentials.username"
	aadRepoCredsPassword = "project_repository_credentials.password"
)

// The refusals of repository access writes.
const (
	// MsgSSHKeyNeedsSecretKey refuses a deploy key on a server without a
	// secret key.
	MsgSSHKeyNeedsSecretKey = "SSH keys need a --secret-key on this server: private keys are never stored unencrypted."
	// MsgCredentialsNeedSecretKey refuses HTTPS credentials on a server
	// without a secret key.
	MsgCredentialsNeedSecretKey = "Repository credentials need a --secret-key on this server: they are never stored unencrypted."
	// MsgSSHKeyExists refuses a second key unless it replaces the first.
	MsgSSHKeyExists = "This project already has an SSH key: send rotate to replace it."
)

// SSHKey is a project's deploy key as the API shows it: never the private
// key, which only FindSSHPrivateKey returns.
type SSHKey struct {
	ProjectID   int64     `db:"project_id"`
	Type        string    `db:"key_type"`
	PublicKey   string    `db:"public_key"`
	Fingerprint string    `db:"fingerprint"`
	Created     time.Time `db:"created"`
}

// NewSSHKey is a key pair to store: Private is the OpenSSH private key in
// plain text, sealed by the store.
type NewSSHKey struct {
	Type, PublicKey, Fingerprint, Private string
}

// KnownHost is one line of a project's known_hosts: Hosts as the line
// names them, the key's type, the whole line, and whether docsd learned it
// on first use (else a maintainer set it).
type KnownHost struct {
	ID        int64     `db:"id"`
	ProjectID int64     `db:"project_id"`
	Position  int       `db:"position"`
	Hosts     string    `db:"hosts"`
	KeyType   string    `db:"key_type"`
	Line      string    `db:"line"`
	Learned   bool      `db:"learned"`
	Created   time.Time `db:"created"`
}

// RepositoryCredentials are a project's HTTPS credentials as the API shows
// them: the username, never the token.
type RepositoryCredentials struct {
	ProjectID int64     `db:"project_id"`
	Username  string    `db:"username"`
	Created   time.Time `db:"created"`
	Modified  time.Time `db:"modified"`
}

// mustSeal seals plain, refusing with msg (an Invalid error) when the store
// has no key: these secrets are never stored unencrypted.
func (s *Store) mustSeal(op, plain, aad, msg string) (string, error) {
	if !s.sealer.Encrypts() {
		return "", &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{errs.NonField: {msg}}}
	}
	return s.sealer.seal(plain, aad)
}

// CreateSSHKey stores a project's deploy key. A project that has one
// already keeps it (Conflict) unless rotate is set, which replaces it.
// Without a secret key it is refused (Invalid).
func (s *Store) CreateSSHKey(ctx context.Context, projectID int64, k NewSSHKey, rotate bool) (*SSHKey, error) {
	const op = "store.CreateSSHKey"
	sealed, err := s.mustSeal(op, k.Private, aadSSHPrivateKey, MsgSSHKeyNeedsSecretKey)
	if err != nil {
		return nil, err
	}
	out := &SSHKey{ProjectID: projectID, Type: k.Type, PublicKey: k.PublicKey, Fingerprint: k.Fingerprint}
	err = s.InTx(ctx, op, func(tx *Tx) error {
		out.Created = tx.Now
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM project_ssh_keys WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		if n > 0 && !rotate {
			return &errs.Error{Kind: errs.Conflict, Op: op, Fields: errs.Fields{errs.NonField: {MsgSSHKeyExists}}}
		}
		if _, err := tx.exec(ctx, `DELETE FROM project_ssh_keys WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO project_ssh_keys (project_id, key_type, public_key, fingerprint, private_key, created) VALUES (?, ?, ?, ?, ?, ?)`,
			projectID, k.Type, k.PublicKey, k.Fingerprint, sealed, tx.Now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FindSSHKey returns the project's deploy key (NotFound when it has none).
func (s *Store) FindSSHKey(ctx context.Context, projectID int64) (*SSHKey, error) {
	var k SSHKey
	err := s.read().get(ctx, &k, `SELECT project_id, key_type, public_key, fingerprint, created FROM project_ssh_keys WHERE project_id = ?`, projectID)
	if err != nil {
		return nil, classify("store.FindSSHKey", err)
	}
	return &k, nil
}

// FindSSHPrivateKey returns the project's private key in plain text, for
// its git commands only (NotFound when it has none).
func (s *Store) FindSSHPrivateKey(ctx context.Context, projectID int64) (string, error) {
	const op = "store.FindSSHPrivateKey"
	var sealed string
	if err := s.read().get(ctx, &sealed, `SELECT private_key FROM project_ssh_keys WHERE project_id = ?`, projectID); err != nil {
		return "", classify(op, err)
	}
	return s.sealer.open(sealed, aadSSHPrivateKey)
}

// DeleteSSHKey removes the project's deploy key (NotFound when it has none).
func (s *Store) DeleteSSHKey(ctx context.Context, projectID int64) error {
	const op = "store.DeleteSSHKey"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM project_ssh_keys WHERE project_id = ?`, projectID)
		return mustAffect(op, res, err)
	})
}

const knownHostColumns = `id, project_id, position, hosts, key_type, line, learned, created`

// FindKnownHosts returns the project's known_hosts lines in order.
func (s *Store) FindKnownHosts(ctx context.Context, projectID int64) ([]*KnownHost, error) {
	hs := []*KnownHost{}
	err := s.read().sel(ctx, &hs, `SELECT `+knownHostColumns+` FROM project_known_hosts WHERE project_id = ? ORDER BY position, id`, projectID)
	if err != nil {
		return nil, classify("store.FindKnownHosts", err)
	}
	return hs, nil
}

// SetKnownHosts replaces the project's known_hosts lines with hosts (only
// their Hosts, KeyType, Line and Learned are read); none clears them.
func (s *Store) SetKnownHosts(ctx context.Context, projectID int64, hosts []KnownHost) error {
	return s.InTx(ctx, "store.SetKnownHosts", func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM project_known_hosts WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		return tx.addKnownHosts(ctx, projectID, 0, hosts)
	})
}

// AddLearnedKnownHosts appends lines docsd learned on a first connection
// to the project's known_hosts, marked learned. Lines the project has
// already are skipped. It returns the ones added.
func (s *Store) AddLearnedKnownHosts(ctx context.Context, projectID int64, hosts []KnownHost) ([]KnownHost, error) {
	var added []KnownHost
	err := s.InTx(ctx, "store.AddLearnedKnownHosts", func(tx *Tx) error {
		var existing []*KnownHost
		if err := tx.sel(ctx, &existing, `SELECT `+knownHostColumns+` FROM project_known_hosts WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		have := map[string]bool{}
		next := 0
		for _, h := range existing {
			have[h.Line] = true
			next = max(next, h.Position+1)
		}
		for _, h := range hosts {
			if !have[h.Line] {
				have[h.Line] = true
				h.Learned = true
				added = append(added, h)
			}
		}
		return tx.addKnownHosts(ctx, projectID, next, added)
	})
	return added, err
}

// addKnownHosts inserts hosts at positions from first on.
func (tx *Tx) addKnownHosts(ctx context.Context, projectID int64, first int, hosts []KnownHost) error {
	for i, h := range hosts {
		if _, err := tx.exec(ctx, `INSERT INTO project_known_hosts (project_id, position, hosts, key_type, line, learned, created) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			projectID, first+i, h.Hosts, h.KeyType, h.Line, h.Learned, tx.Now); err != nil {
			return err
		}
	}
	return nil
}

// SetRepositoryCredentials stores (or replaces) the project's HTTPS
// credentials, both sealed; without a secret key it is refused (Invalid).
func (s *Store) SetRepositoryCredentials(ctx context.Context, projectID int64, username, password string) (*RepositoryCredentials, error) {
	const op = "store.SetRepositoryCredentials"
	sealedUser, err := s.mustSeal(op, username, aadRepoCredsUsername, MsgCredentialsNeedSecretKey)
	if err != nil {
		return nil, err
	}
	sealedPassword, err := s.mustSeal(op, password, aadRepoCredsPassword, MsgCredentialsNeedSecretKey)
	if err != nil {
		return nil, err
	}
	out := &RepositoryCredentials{ProjectID: projectID, Username: username}
	err = s.InTx(ctx, op, func(tx *Tx) error {
		out.Modified = tx.Now
		var created []time.Time
		if err := tx.sel(ctx, &created, `SELECT created FROM project_repository_credentials WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		if len(created) > 0 {
			out.Created = created[0]
			_, err := tx.exec(ctx, `UPDATE project_repository_credentials SET username = ?, password = ?, modified = ? WHERE project_id = ?`,
				sealedUser, sealedPassword, tx.Now, projectID)
			return err
		}
		out.Created = tx.Now
		_, err := tx.exec(ctx, `INSERT INTO project_repository_credentials (project_id, username, password, created, modified) VALUES (?, ?, ?, ?, ?)`,
			projectID, sealedUser, sealedPassword, tx.Now, tx.Now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FindRepositoryCredentials returns the project's HTTPS credentials
// without the token (NotFound when it has none).
func (s *Store) FindRepositoryCredentials(ctx context.Context, projectID int64) (*RepositoryCredentials, error) {
	const op = "store.FindRepositoryCredentials"
	var c RepositoryCredentials
	if err := s.read().get(ctx, &c, `SELECT project_id, username, created, modified FROM project_repository_credentials WHERE project_id = ?`, projectID); err != nil {
		return nil, classify(op, err)
	}
	var err error
	c.Username, err = s.sealer.open(c.Username, aadRepoCredsUsername)
	return &c, err
}

// FindRepositoryToken returns the project's HTTPS username and token in
// plain text, for its git commands only (NotFound when it has none).
func (s *Store) FindRepositoryToken(ctx context.Context, projectID int64) (username, token string, err error) {
	const op = "store.FindRepositoryToken"
	var row struct {
		Username string `db:"username"`
		Password string `db:"password"`
	}
	if err := s.read().get(ctx, &row, `SELECT username, password FROM project_repository_credentials WHERE project_id = ?`, projectID); err != nil {
		return "", "", classify(op, err)
	}
	if username, err = s.sealer.open(row.Username, aadRepoCredsUsername); err != nil {
		return "", "", err
	}
	token, err = s.sealer.open(row.Password, aadRepoCredsPassword)
	return username, token, err
}

// DeleteRepositoryCredentials removes the project's HTTPS credentials
// (NotFound when it has none).
func (s *Store) DeleteRepositoryCredentials(ctx context.Context, projectID int64) error {
	const op = "store.DeleteRepositoryCredentials"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM project_repository_credentials WHERE project_id = ?`, projectID)
		return mustAffect(op, res, err)
	})
}

// SealsSecrets reports whether the store has a secret key to seal with:
// without one, deploy keys and repository credentials are refused.
func (s *Store) SealsSecrets() bool { return s.sealer.Encrypts() }
