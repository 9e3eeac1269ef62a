package accounts

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"docsd/internal/errs"
	"docsd/store"
)

// MsgInvalidUsername refuses a new username outside the rule of
// ValidUsername.
const MsgInvalidUsername = "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."

// SetInvitationSignUp sets whether an invitation to an email address may
// create an account on its page (--invitation-signup).
func (a *Accounts) SetInvitationSignUp(on bool) { a.invitationSignUp = on }

// SignUpOpen reports whether an email invitation may create an account:
// --invitation-signup is on and password sign-in is open to everyone
// (an account made with a password must be able to sign in with it).
func (a *Accounts) SignUpOpen() bool {
	return a.invitationSignUp && (a.passwords == "" || a.passwords == PasswordsOn)
}

// SignedUp is the outcome of SignUpByInvitation: the new user, the
// cookie value of their session, and the invitation they accepted.
type SignedUp struct {
	User       *store.User
	Session    string
	Invitation *store.Invitation
}

// SignUpByInvitation creates an account from the sign-up form of the
// invitation whose link holds token, accepts the invitation for it and
// signs it in. The account's email is the invitation's address, verified
// only when the invitation was emailed to it. The checks, in order:
// sign-up open (SignUpOpen, else Forbidden); the token known (NotFound);
// the invitation for an email address — one for a named user never makes
// an account, whoever holds its link (Forbidden); not expired (Invalid,
// field token); the username (1–150 of letters, digits, @.+-_, free in
// any case) and the password (8 characters to 72 bytes), Invalid with
// field messages; no organization requires single sign-on of the address
// (Forbidden). Creating the user and joining the target are one
// transaction.
func (a *Accounts) SignUpByInvitation(ctx context.Context, token, username, password string) (*SignedUp, error) {
	const op = "accounts.SignUpByInvitation"
	if !a.SignUpOpen() {
		return nil, errs.E(errs.Forbidden, op, "Creating an account from an invitation is turned off on this server: sign in to accept it.")
	}
	inv, err := a.store.FindInvitationByToken(ctx, strings.TrimSpace(token))
	if err != nil {
		return nil, err
	}
	if inv.ToUserID != nil || inv.ToEmail == "" {
		return nil, errs.E(errs.Forbidden, op, "This invitation is for an existing account: sign in to accept it.")
	}
	if inv.Expired(a.store.Now()) {
		return nil, errs.FieldError(op, "token", store.MsgInvitationExpired)
	}
	username = strings.TrimSpace(username)
	fields := errs.Fields{}
	switch {
	case username == "":
		fields.Add("username", errs.MsgRequired)
	case !ValidUsername(username):
		fields.Add("username", MsgInvalidUsername)
	}
	if password == "" {
		fields.Add("password", errs.MsgRequired)
	} else if msg := passwordProblem(password); msg != "" {
		fields.Add("password", msg)
	}
	if err := fields.Err(op); err != nil {
		return nil, err
	}
	if a.ssoRequired != nil {
		domain, err := a.ssoRequired(ctx, &store.User{Username: username, Email: inv.ToEmail, EmailVerified: inv.Emailed, IsActive: true})
		if err != nil {
			return nil, err
		}
		if domain != "" {
			return nil, refused(op, ReasonSSORequired,
				fmt.Sprintf("Accounts with an email address at %s must sign in with %s.", domain, a.ssoName))
		}
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	u, err := a.store.SignUpByInvitation(ctx, inv, username, string(hash))
	if err != nil {
		return nil, err
	}
	value, err := a.store.CreateDashboardSession(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return &SignedUp{User: u, Session: value, Invitation: inv}, nil
}
