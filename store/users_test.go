package store_test

import (
	"errors"
	"regexp"
	"strconv"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestCreateUser(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		storetest.SetClock(s, t0)

		tests := []struct {
			name      string
			username  string
			superuser bool
			wantName  string
			wantKind  *errs.Kind
		}{
			{name: "plain", username: "alice", wantName: "alice"},
			{name: "superuser", username: "root", superuser: true, wantName: "root"},
			{name: "trimmed", username: "  carol ", wantName: "carol"},
			{name: "case matters", username: "Alice", wantName: "Alice"},
			{name: "duplicate", username: "alice", wantKind: ptr(errs.Conflict)},
			{name: "duplicate after trimming", username: " carol", wantKind: ptr(errs.Conflict)},
			{name: "blank", username: "   ", wantKind: ptr(errs.Invalid)},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				u, err := s.CreateUser(ctx, tt.username, tt.wantName+"@example.com", tt.superuser)
				if tt.wantKind != nil {
					wantKind(t, err, *tt.wantKind)
					return
				}
				must(t, err)
				if u.ID <= 0 || u.Username != tt.wantName || !u.IsActive || u.IsSuperuser != tt.superuser {
					t.Errorf("CreateUser = %+v", u)
				}
				got, err := s.FindUserByUsername(ctx, tt.wantName)
				must(t, err)
				wantTime(t, "created", got.Created, t0)
				got.Created = u.Created // compared above, location aside
				if *got != *u {
					t.Errorf("FindUserByUsername = %+v, want %+v", got, u)
				}
			})
		}
		// The conflict message names the user.
		_, err := s.CreateUser(ctx, "alice", "", false)
		var e *errs.Error
		if want := `user "alice" already exists`; !errors.As(err, &e) || e.Message != want {
			t.Errorf("duplicate user error = %v, want message %q", err, want)
		}
	})
}

func TestUsersByIDsAndActive(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		storetest.MustUser(t, s, "carol")

		users, err := s.FindUsersByIDs(ctx, []int64{bob.ID, alice.ID, 999})
		must(t, err)
		got := map[int64]string{}
		for _, u := range users {
			got[u.ID] = u.Username
		}
		if len(got) != 2 || got[alice.ID] != "alice" || got[bob.ID] != "bob" {
			t.Errorf("FindUsersByIDs = %v, want alice and bob", got)
		}

		must(t, s.SetUserActive(ctx, "bob", false))
		u, err := s.FindUserByUsername(ctx, "bob")
		must(t, err)
		if u.IsActive {
			t.Errorf("bob is active after SetUserActive(false)")
		}
		must(t, s.SetUserActive(ctx, "bob", true))
		u, err = s.FindUserByUsername(ctx, "bob")
		must(t, err)
		if !u.IsActive {
			t.Errorf("bob is inactive after SetUserActive(true)")
		}
	})
}

func TestTokens(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")

		key, tok, err := s.CreateToken(ctx, alice.ID)
		must(t, err)
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(key) {
			t.Errorf("key = %q, want 40 lower-case hex characters", key)
		}
		if tok.Prefix != key[:4] || tok.Hash != store.HashToken(key) || tok.UserID != alice.ID {
			t.Errorf("token = %+v for key %q", tok, key)
		}
		if !hex64.MatchString(tok.Hash) || tok.Hash == key {
			t.Errorf("hash = %q, want a SHA-256 hex digest", tok.Hash)
		}

		// Only the hash and the prefix are stored: no column holds the key.
		rows, err := db.QueryContext(ctx, `SELECT hash, prefix FROM tokens WHERE id = `+strconv.FormatInt(tok.ID, 10))
		must(t, err)
		var n int
		for rows.Next() {
			var hash, prefix string
			must(t, rows.Scan(&hash, &prefix))
			if hash != store.HashToken(key) || prefix != key[:4] || hash == key {
				t.Errorf("stored token row = (%q, %q)", hash, prefix)
			}
			n++
		}
		must(t, rows.Close())
		if n != 1 {
			t.Fatalf("stored token rows = %d, want 1", n)
		}
		var withKey int
		must(t, db.QueryRowContext(ctx, rebind(d, `SELECT COUNT(*) FROM tokens WHERE hash = ? OR prefix = ?`), key, key).Scan(&withKey))
		if withKey != 0 {
			t.Errorf("%d token rows contain the raw key", withKey)
		}

		u, err := s.FindUserByToken(ctx, key)
		must(t, err)
		if u.ID != alice.ID {
			t.Errorf("FindUserByToken = user %d, want %d", u.ID, alice.ID)
		}
		_, err = s.FindUserByToken(ctx, key[:39]+"x")
		wantKind(t, err, errs.NotFound)
		_, err = s.FindUserByToken(ctx, "")
		wantKind(t, err, errs.NotFound)

		// An inactive user is still found: the caller decides.
		must(t, s.SetUserActive(ctx, "alice", false))
		u, err = s.FindUserByToken(ctx, key)
		must(t, err)
		if u.IsActive {
			t.Errorf("FindUserByToken: inactive user reported active")
		}

		key2, tok2, err := s.CreateNamedToken(ctx, alice.ID, "CI deploy")
		must(t, err)
		bobKey, bobTok, err := s.CreateToken(ctx, bob.ID)
		must(t, err)
		ts, err := s.FindTokens(ctx, alice.ID)
		must(t, err)
		// MustUser made one token before these.
		if len(ts) != 3 || ts[1].ID != tok.ID || ts[2].ID != tok2.ID {
			t.Errorf("FindTokens(alice) = %v, want 3 ending with %d, %d", ids(ts, func(t *store.Token) int64 { return t.ID }), tok.ID, tok2.ID)
		}
		if len(ts) == 3 && (ts[1].Name != "" || ts[2].Name != "CI deploy") {
			t.Errorf("FindTokens(alice) names = %q, %q; want \"\", \"CI deploy\"", ts[1].Name, ts[2].Name)
		}

		tests := []struct {
			name     string
			keyOrID  string
			gone     string // key that must stop working
			kept     []string
			wantKind *errs.Kind
		}{
			{name: "by key", keyOrID: key, gone: key, kept: []string{key2, bobKey}},
			{name: "by key again", keyOrID: key, wantKind: ptr(errs.NotFound)},
			{name: "by id", keyOrID: strconv.FormatInt(bobTok.ID, 10), gone: bobKey, kept: []string{key2}},
			{name: "by id again", keyOrID: strconv.FormatInt(bobTok.ID, 10), wantKind: ptr(errs.NotFound)},
			{name: "unknown key", keyOrID: "0123456789012345678901234567890123456789", wantKind: ptr(errs.NotFound)},
			{name: "garbage", keyOrID: "nonsense", wantKind: ptr(errs.NotFound)},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := s.RevokeToken(ctx, tt.keyOrID)
				if tt.wantKind != nil {
					wantKind(t, err, *tt.wantKind)
					return
				}
				must(t, err)
				_, err = s.FindUserByToken(ctx, tt.gone)
				wantKind(t, err, errs.NotFound)
				for _, k := range tt.kept {
					if _, err := s.FindUserByToken(ctx, k); err != nil {
						t.Errorf("token %s…: %v, want it kept", k[:4], err)
					}
				}
			})
		}
	})
}
