package store_test

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestInvitations checks an invitation's life: a 32-character token found
// by its hash, renewal on a second invitation of the same invitee (the old
// token stops working), acceptance that adds the maintainer once and
// deletes the invitation, and the pending limit per target.
func TestInvitations(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		p := storetest.MustImport(t, s, alice, "Handbook", "https://example.com/h.git").Project
		const days15 = 15 * 24 * time.Hour

		inv, err := s.CreateInvitation(ctx, store.Invitation{ObjectType: store.InviteProject, ObjectID: p.ID, FromUserID: &alice.ID, ToEmail: "Fay@Partner.example"}, days15)
		must(t, err)
		if !regexp.MustCompile(`^[A-Za-z0-9]{32}$`).MatchString(inv.Token) || !inv.Expires.Equal(t0.Add(days15)) {
			t.Fatalf("created %+v", inv)
		}
		clock.Advance(time.Hour)
		again, err := s.CreateInvitation(ctx, store.Invitation{ObjectType: store.InviteProject, ObjectID: p.ID, FromUserID: &alice.ID, ToEmail: "fay@partner.example"}, days15)
		must(t, err)
		if again.ID != inv.ID || again.Token == inv.Token || !again.Expires.Equal(t0.Add(time.Hour+days15)) {
			t.Fatalf("renewed %+v, first %+v", again, inv)
		}
		if _, err := s.FindInvitationByToken(ctx, inv.Token); !errs.Is(err, errs.NotFound) {
			t.Errorf("old token after renewal: %v, want NotFound", err)
		}
		got, err := s.FindInvitationByToken(ctx, again.Token)
		if err != nil || got.ID != inv.ID || got.ProjectID == nil || *got.ProjectID != p.ID || got.Expired(clock.Now()) {
			t.Fatalf("by token: %+v, %v", got, err)
		}
		if !got.Expired(got.Expires) {
			t.Errorf("not expired at its expiry")
		}

		must(t, s.AcceptInvitation(ctx, got, bob.ID, true))
		ms, err := s.FindMaintainers(ctx, []int64{p.ID})
		must(t, err)
		if len(ms) != 2 {
			t.Errorf("maintainers after accepting: %d, want 2", len(ms))
		}
		if u, _ := s.FindUserByUsername(ctx, "bob"); u.Email != "fay@partner.example" || !u.EmailVerified {
			t.Errorf("bob after accepting with the email verified: %+v", u)
		}
		if err := s.AcceptInvitation(ctx, got, bob.ID, false); !errs.Is(err, errs.NotFound) {
			t.Errorf("accepting twice: %v, want NotFound", err)
		}

		// Already a maintainer: accepting succeeds all the same.
		inv, err = s.CreateInvitation(ctx, store.Invitation{ObjectType: store.InviteProject, ObjectID: p.ID, FromUserID: &alice.ID, ToUserID: &bob.ID}, days15)
		must(t, err)
		must(t, s.AcceptInvitation(ctx, inv, bob.ID, false))

		for i := range store.MaxPendingInvitations {
			_, err := s.CreateInvitation(ctx, store.Invitation{ObjectType: store.InviteProject, ObjectID: p.ID, ToEmail: "u" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "@x.example"}, days15)
			must(t, err)
		}
		_, err = s.CreateInvitation(ctx, store.Invitation{ObjectType: store.InviteProject, ObjectID: p.ID, ToEmail: "one-more@x.example"}, days15)
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != errs.Conflict || e.Message != "Too many pending invitations: revoke some first." {
			t.Errorf("201st invitation: %v", err)
		}
		if list, _ := s.FindInvitations(ctx, store.InviteProject, p.ID); len(list) != store.MaxPendingInvitations {
			t.Errorf("pending: %d", len(list))
		}
		must(t, s.DeleteInvitation(ctx, list0(t, s, p.ID)))
	})
}

func list0(t *testing.T, s *store.Store, projectID int64) int64 {
	list, err := s.FindInvitations(t.Context(), store.InviteProject, projectID)
	must(t, err)
	return list[0].ID
}

// TestSignUpByInvitation: signing up creates the user (email verified
// only when the invitation was emailed) and joins the target in one
// transaction; a refused sign-up — a username taken in another case, an
// invitation used already, one for a named user — writes nothing.
func TestSignUpByInvitation(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		p := storetest.MustImport(t, s, alice, "Handbook", "https://example.com/h.git").Project
		invite := func(inv store.Invitation) *store.Invitation {
			t.Helper()
			inv.ObjectType, inv.ObjectID, inv.FromUserID = store.InviteProject, p.ID, &alice.ID
			out, err := s.CreateInvitation(ctx, inv, time.Hour)
			must(t, err)
			return out
		}
		users := func() int {
			t.Helper()
			var n int
			for _, name := range []string{"fay", "gil"} {
				if _, err := s.FindUserByUsername(ctx, name); err == nil {
					n++
				}
			}
			return n
		}

		fayInv := invite(store.Invitation{ToEmail: "fay@partner.example"})
		if _, err := s.SignUpByInvitation(ctx, fayInv, "BOB", "hash"); !errs.Is(err, errs.Invalid) || errs.FieldsOf(err)["username"][0] != store.MsgUsernameTaken {
			t.Errorf("sign-up as BOB: %v, want %q", err, store.MsgUsernameTaken)
		}
		fay, err := s.SignUpByInvitation(ctx, fayInv, "fay", "hash")
		must(t, err)
		if fay.Email != "fay@partner.example" || fay.EmailVerified || !fay.IsActive {
			t.Errorf("fay = %+v", fay)
		}
		if ms, _ := s.FindMaintainers(ctx, []int64{p.ID}); len(ms) != 2 {
			t.Errorf("maintainers after fay signed up: %d, want 2", len(ms))
		}
		if _, err := s.SignUpByInvitation(ctx, fayInv, "gil", "hash"); !errs.Is(err, errs.NotFound) {
			t.Errorf("a used invitation: %v, want NotFound", err)
		}
		bobInv := invite(store.Invitation{ToUserID: &bob.ID})
		if _, err := s.SignUpByInvitation(ctx, bobInv, "gil", "hash"); !errs.Is(err, errs.NotFound) {
			t.Errorf("an invitation for bob: %v, want NotFound", err)
		}
		if n := users(); n != 1 {
			t.Errorf("users fay and gil: %d, want fay only", n)
		}

		gilInv := invite(store.Invitation{ToEmail: "gil@partner.example"})
		must(t, s.MarkInvitationEmailed(ctx, gilInv.ID))
		gilInv, err = s.FindInvitation(ctx, gilInv.ID)
		must(t, err)
		gil, err := s.SignUpByInvitation(ctx, gilInv, "gil", "hash")
		must(t, err)
		if !gil.EmailVerified {
			t.Errorf("gil's emailed invitation left the address unverified")
		}
	})
}
