package store

import (
	"context"
	"strings"
	"time"
)

// Certificate states of a domain (Domain.SSLStatus), Read the Docs' names.
const (
	SSLUnknown = "unknown" // no certificate asked for yet
	SSLPending = "pending" // an order is under way or failed and will be retried
	SSLValid   = "valid"   // docsd holds a current certificate for the domain
	SSLInvalid = "invalid" // the last order failed; SSLError says why
)

// Domain is a custom domain a project's docs are served on. A domain
// belongs to one project (its name is unique), and at most one of a
// project's domains is canonical: the project's docs URLs use it.
type Domain struct {
	ID        int64  `db:"id"`
	ProjectID int64  `db:"project_id"`
	Domain    string `db:"domain"` // lower case, no port, no trailing dot
	Canonical bool   `db:"canonical"`
	// HTTPS: readers are sent to https:// URLs of the domain.
	HTTPS bool `db:"https"`
	// SkipValidation serves the domain without looking at its DNS (set by
	// a superuser).
	SkipValidation bool `db:"skip_validation"`
	// ValidationProcessStart is when the DNS checks (re)started; they stop
	// after the validation window.
	ValidationProcessStart time.Time `db:"validation_process_start"`
	// Validated is when the domain's DNS was first seen pointing at
	// docsd; nil until then.
	Validated *time.Time `db:"validated"`
	// ValidationNext is when the next DNS check is due; nil when none is
	// (validated, or the window is over).
	ValidationNext     *time.Time `db:"validation_next"`
	ValidationAttempts int        `db:"validation_attempts"`
	// ValidationError is what the last DNS check found wrong.
	ValidationError string `db:"validation_error"`
	SSLStatus       string `db:"ssl_status"`
	// SSLError is why the last certificate order failed.
	SSLError              string    `db:"ssl_error"`
	HSTSMaxAge            int64     `db:"hsts_max_age"`
	HSTSIncludeSubdomains bool      `db:"hsts_include_subdomains"`
	HSTSPreload           bool      `db:"hsts_preload"`
	Created               time.Time `db:"created"`
	Modified              time.Time `db:"modified"`
}

// Served reports whether the domain's docs are served: its DNS was seen
// pointing at docsd, or a superuser skipped the check.
func (d *Domain) Served() bool { return d.SkipValidation || d.Validated != nil }

// domainColumns are the columns of Domain, on one line: FindAllDomains
// qualifies each by its ", ".
const domainColumns = `id, project_id, domain, canonical, https, skip_validation, validation_process_start, validated, ` +
	`validation_next, validation_attempts, validation_error, ssl_status, ssl_error, hsts_max_age, hsts_include_subdomains, ` +
	`hsts_preload, created, modified`

// FindDomains returns a project's domains, the canonical one first, then
// by name (Read the Docs' order).
func (s *Store) FindDomains(ctx context.Context, projectID int64) ([]*Domain, error) {
	ds := []*Domain{}
	err := s.read().sel(ctx, &ds, `SELECT `+domainColumns+` FROM domains WHERE project_id = ? ORDER BY canonical DESC, domain`, projectID)
	return ds, classify("store.FindDomains", err)
}

// FindDomain returns the project's domain with that id.
func (s *Store) FindDomain(ctx context.Context, projectID, id int64) (*Domain, error) {
	var d Domain
	err := s.read().get(ctx, &d, `SELECT `+domainColumns+` FROM domains WHERE project_id = ? AND id = ?`, projectID, id)
	if err != nil {
		return nil, classify("store.FindDomain", err)
	}
	return &d, nil
}

// FindDomainByName returns the domain named name (lower case), of any
// project.
func (s *Store) FindDomainByName(ctx context.Context, name string) (*Domain, error) {
	var d Domain
	err := s.read().get(ctx, &d, `SELECT `+domainColumns+` FROM domains WHERE domain = ?`, name)
	if err != nil {
		return nil, classify("store.FindDomainByName", err)
	}
	return &d, nil
}

// ServedDomain is a domain with the slug of its project, as the docs host
// and the certificate policy look it up.
type ServedDomain struct {
	Domain
	ProjectSlug string `db:"project_slug"`
}

// FindAllDomains returns every project's domains with their projects'
// slugs.
func (s *Store) FindAllDomains(ctx context.Context) ([]*ServedDomain, error) {
	ds := []*ServedDomain{}
	err := s.read().sel(ctx, &ds, `SELECT d.`+strings.ReplaceAll(domainColumns, ", ", ", d.")+`, p.slug AS project_slug
		FROM domains d JOIN projects p ON p.id = d.project_id ORDER BY d.id`)
	return ds, classify("store.FindAllDomains", err)
}

// FindDomainsToCheck returns the domains whose DNS check is due at now.
func (s *Store) FindDomainsToCheck(ctx context.Context, now time.Time) ([]*Domain, error) {
	ds := []*Domain{}
	err := s.read().sel(ctx, &ds, `SELECT `+domainColumns+` FROM domains WHERE validated IS NULL AND NOT skip_validation
		AND validation_next IS NOT NULL AND validation_next <= ? ORDER BY validation_next, id`, now)
	return ds, classify("store.FindDomainsToCheck", err)
}

// NewDomain is what creating a domain stores.
type NewDomain struct {
	Domain                string
	Canonical             bool
	HTTPS                 bool
	SkipValidation        bool
	HSTSMaxAge            int64
	HSTSIncludeSubdomains bool
	HSTSPreload           bool
}

// CreateDomain stores a validated domain; its DNS checks start now (the
// first one is due at once). A name already taken is a Conflict, as is a
// second canonical domain of the project.
func (s *Store) CreateDomain(ctx context.Context, projectID int64, n NewDomain) (*Domain, error) {
	d := &Domain{ProjectID: projectID, Domain: n.Domain, Canonical: n.Canonical, HTTPS: n.HTTPS, SkipValidation: n.SkipValidation,
		HSTSMaxAge: n.HSTSMaxAge, HSTSIncludeSubdomains: n.HSTSIncludeSubdomains, HSTSPreload: n.HSTSPreload, SSLStatus: SSLUnknown}
	err := s.InTx(ctx, "store.CreateDomain", func(tx *Tx) error {
		d.Created, d.Modified, d.ValidationProcessStart = tx.Now, tx.Now, tx.Now
		if !n.SkipValidation {
			next := tx.Now
			d.ValidationNext = &next
		}
		id, err := tx.insert(ctx, `INSERT INTO domains (project_id, domain, canonical, https, skip_validation, validation_process_start,
			validation_next, hsts_max_age, hsts_include_subdomains, hsts_preload, created, modified)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			projectID, d.Domain, d.Canonical, d.HTTPS, d.SkipValidation, d.ValidationProcessStart, d.ValidationNext,
			d.HSTSMaxAge, d.HSTSIncludeSubdomains, d.HSTSPreload, d.Created, d.Modified)
		d.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DomainUpdate lists the fields of a domain to change; nil fields stay.
type DomainUpdate struct {
	Canonical             *bool
	HTTPS                 *bool
	SkipValidation        *bool
	HSTSMaxAge            *int64
	HSTSIncludeSubdomains *bool
	HSTSPreload           *bool
	// RestartValidation starts the DNS checks again from now (a domain
	// whose window is over, or one a reader wants checked at once).
	RestartValidation bool
}

// UpdateDomain changes the project's domain with that id. A second
// canonical domain of the project is a Conflict.
func (s *Store) UpdateDomain(ctx context.Context, projectID, id int64, upd DomainUpdate) (*Domain, error) {
	const op = "store.UpdateDomain"
	var d Domain
	err := s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.get(ctx, &d, `SELECT `+domainColumns+` FROM domains WHERE project_id = ? AND id = ?`, projectID, id); err != nil {
			return err
		}
		set(&d.Canonical, upd.Canonical)
		set(&d.HTTPS, upd.HTTPS)
		set(&d.SkipValidation, upd.SkipValidation)
		set(&d.HSTSMaxAge, upd.HSTSMaxAge)
		set(&d.HSTSIncludeSubdomains, upd.HSTSIncludeSubdomains)
		set(&d.HSTSPreload, upd.HSTSPreload)
		if upd.RestartValidation && d.Validated == nil {
			now := tx.Now
			d.ValidationProcessStart, d.ValidationNext, d.ValidationAttempts = now, &now, 0
		}
		d.Modified = tx.Now
		res, err := tx.exec(ctx, `UPDATE domains SET canonical = ?, https = ?, skip_validation = ?, hsts_max_age = ?,
			hsts_include_subdomains = ?, hsts_preload = ?, validation_process_start = ?, validation_next = ?,
			validation_attempts = ?, modified = ? WHERE id = ?`,
			d.Canonical, d.HTTPS, d.SkipValidation, d.HSTSMaxAge, d.HSTSIncludeSubdomains, d.HSTSPreload,
			d.ValidationProcessStart, d.ValidationNext, d.ValidationAttempts, d.Modified, d.ID)
		return mustAffect(op, res, err)
	})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// set copies *from into to when from is given.
func set[T any](to *T, from *T) {
	if from != nil {
		*to = *from
	}
}

// DomainCheck is the outcome of one DNS check of a domain.
type DomainCheck struct {
	// Validated: the DNS points at docsd now.
	Validated bool
	// Error is what was found wrong ("" when validated).
	Error string
	// Next is when the next check is due; nil when the checks stop.
	Next *time.Time
}

// RecordDomainCheck stores the outcome of a DNS check of the domain with
// that id. A domain validated before stays validated.
func (s *Store) RecordDomainCheck(ctx context.Context, id int64, c DomainCheck) error {
	const op = "store.RecordDomainCheck"
	return s.InTx(ctx, op, func(tx *Tx) error {
		var validated *time.Time
		if c.Validated {
			now := tx.Now
			validated = &now
		}
		res, err := tx.exec(ctx, `UPDATE domains SET validated = COALESCE(validated, ?), validation_next = ?,
			validation_attempts = validation_attempts + 1, validation_error = ?, modified = ? WHERE id = ?`,
			validated, c.Next, c.Error, tx.Now, id)
		return mustAffect(op, res, err)
	})
}

// RecordDomainCertificate stores the state of the domain's certificate
// (one of the SSL constants) and why an order failed ("" otherwise). It
// writes only when something changed, so that a renewal check of every
// domain does not empty the nodes' caches.
func (s *Store) RecordDomainCertificate(ctx context.Context, name, status, reason string) error {
	return s.InTx(ctx, "store.RecordDomainCertificate", func(tx *Tx) error {
		var now struct {
			Status string `db:"ssl_status"`
			Error  string `db:"ssl_error"`
		}
		err := tx.get(ctx, &now, `SELECT ssl_status, ssl_error FROM domains WHERE domain = ?`, name)
		if err != nil || (now.Status == status && now.Error == reason) {
			return err // a statement that writes nothing still counts as a write
		}
		_, err = tx.exec(ctx, `UPDATE domains SET ssl_status = ?, ssl_error = ?, modified = ? WHERE domain = ?`, status, reason, tx.Now, name)
		return err
	})
}

// DeleteDomain removes the project's domain with that id.
func (s *Store) DeleteDomain(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteDomain"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM domains WHERE id = ? AND project_id = ?`, id, projectID)
		return mustAffect(op, res, err)
	})
}
