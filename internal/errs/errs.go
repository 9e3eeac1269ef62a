// Package errs is docsd's one error vocabulary: a small set of kinds that every
// layer passes up wrapped, and that exactly one table at each edge (GraphQL,
// HTTP) turns into a code or a status.
//
// It is a leaf package so that store, graph and rest can all recover a kind
// with errors.As without rest importing store.
package errs

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

// The kinds. Internal is the zero value so that an unclassified error is never
// mistaken for a client error.
const (
	Internal        Kind = iota // a server failure; the caller can only retry
	NotFound                    // the object does not exist or is not visible
	Invalid                     // the input is wrong; Fields says where
	Conflict                    // the input clashes with existing state
	Forbidden                   // authenticated, but not allowed
	Unauthenticated             // credentials missing or bad
	Unavailable                 // a dependency (the database) does not answer; retry later
	Throttled                   // the caller's request budget is spent; Details["retryAfter"] says for how long
	TooComplex                  // the operation is over a size, depth or cost limit; Details say which
)

// lastKind is the highest Kind, for loops over every kind.
const lastKind = TooComplex

// String returns the kind's stable code, as GraphQL's extensions.code shows it.
func (k Kind) String() string {
	switch k {
	case NotFound:
		return "NOT_FOUND"
	case Invalid:
		return "INVALID"
	case Conflict:
		return "CONFLICT"
	case Forbidden:
		return "FORBIDDEN"
	case Unauthenticated:
		return "UNAUTHENTICATED"
	case Unavailable:
		return "UNAVAILABLE"
	case Throttled:
		return "THROTTLED"
	case TooComplex:
		return "QUERY_TOO_COMPLEX"
	default:
		return "INTERNAL"
	}
}

// KindFromCode is the inverse of Kind.String; unknown codes are Internal.
func KindFromCode(code string) Kind {
	for k := Internal; k <= lastKind; k++ {
		if k.String() == code {
			return k
		}
	}
	return Internal
}

// NonField is the key of messages that concern the whole input, not one field.
const NonField = "non_field_errors"

// Fields maps a field name to its messages. Nested input fields use dotted
// names ("repository.url"); a message about a nested object as a whole uses
// "repository.non_field_errors". Only the first failing check of a field is
// recorded (Add keeps the first message).
type Fields map[string][]string

// Add records msg for field unless the field already has a message.
func (f Fields) Add(field, msg string) {
	if _, ok := f[field]; ok {
		return
	}
	f[field] = []string{msg}
}

// Has reports whether field (or any field nested below it) has a message.
func (f Fields) Has(field string) bool {
	if _, ok := f[field]; ok {
		return true
	}
	for k := range f {
		if strings.HasPrefix(k, field+".") {
			return true
		}
	}
	return false
}

// Err returns an Invalid error carrying f, or nil when f is empty.
func (f Fields) Err(op string) error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Kind: Invalid, Op: op, Fields: f}
}

// Error is a classified error. Message, when set, is the text shown to API
// callers (e.g. Read the Docs' exact authentication messages); otherwise
// the wrapped error's text is used.
type Error struct {
	Kind    Kind
	Op      string // the operation that failed, for logs: "store.CreateProject"
	Message string
	Fields  Fields // per-field messages, for Invalid
	// Details are machine-readable facts about the error that API callers
	// see (GraphQL extensions.details): the limit a TooComplex operation
	// broke, the seconds a Throttled caller must wait.
	Details map[string]any
	Err     error // the cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Kind.String())
	if msg := e.Text(); msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

// Text is the message meant for API callers: Message, else the field messages,
// else the cause's text.
func (e *Error) Text() string {
	if e.Message != "" {
		return e.Message
	}
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+": "+strings.Join(e.Fields[k], " "))
		}
		return strings.Join(parts, "; ")
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return ""
}

func (e *Error) Unwrap() error { return e.Err }

// E builds an *Error of kind k for op with a caller-facing message.
func E(k Kind, op, msg string) error {
	return &Error{Kind: k, Op: op, Message: msg}
}

// Wrap classifies err as kind k in op. A nil err stays nil.
func Wrap(k Kind, op string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: k, Op: op, Err: err}
}

// Internalf is an Internal error with a formatted cause.
func Internalf(op, format string, args ...any) error {
	return &Error{Kind: Internal, Op: op, Err: fmt.Errorf(format, args...)}
}

// FieldError is an Invalid error with one message on one field.
func FieldError(op, field, msg string) error {
	return &Error{Kind: Invalid, Op: op, Fields: Fields{field: {msg}}}
}

// KindOf returns the kind of the first *Error in err's chain, Internal when
// there is none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is classified as kind k.
func Is(err error, k Kind) bool { return err != nil && KindOf(err) == k }

// FieldsOf returns the per-field messages of the first *Error in err's chain
// that has any.
func FieldsOf(err error) Fields {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil
		}
		if len(e.Fields) > 0 {
			return e.Fields
		}
		err = e.Err
	}
	return nil
}

// DetailsOf returns the details of the first *Error in err's chain that has
// any.
func DetailsOf(err error) map[string]any {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil
		}
		if len(e.Details) > 0 {
			return e.Details
		}
		err = e.Err
	}
	return nil
}

// RetryAfterKey is the key of Details that holds the whole seconds a
// Throttled caller must wait (the `Retry-After` header of HTTP answers).
const RetryAfterKey = "retryAfter"

// RetryAfter returns the seconds a Throttled error asks the caller to wait,
// 0 when it names none.
func RetryAfter(err error) int {
	secs, _ := DetailsOf(err)[RetryAfterKey].(int)
	return secs
}

// Standard messages, the texts Read the Docs' API gives, shared by every
// surface.
const (
	MsgNotFound        = "Not found."
	MsgForbidden       = "You do not have permission to perform this action."
	MsgNoCredentials   = "Authentication credentials were not provided."
	MsgInvalidToken    = "Invalid token."
	MsgInactiveUser    = "User inactive or deleted."
	MsgTokenNoCreds    = "Invalid token header. No credentials provided."
	MsgTokenSpaces     = "Invalid token header. Token string should not contain spaces."
	MsgTokenBadChars   = "Invalid token header. Token string should not contain invalid characters."
	MsgServerError     = "A server error occurred."
	MsgBuildFinished   = "This build has already finished."
	MsgCursorGone      = "This cursor does not point at a row of this list (the row may have been deleted); page again from the start."
	MsgUnavailable     = "Service temporarily unavailable, try again later."
	MsgRequired        = "This field is required."
	MsgNotNull         = "This field may not be null."
	MsgNotBlank        = "This field may not be blank."
	MsgNotString       = "Not a valid string."
	MsgNullCharacters  = "Null characters are not allowed."
	MsgNotBoolean      = "Must be a valid boolean."
	MsgInvalidURL      = "Enter a valid URL."
	MsgInvalidSlug     = `Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.`
	MsgInvalidValue    = "Invalid value."
	MsgTooLongFormat   = "Ensure this field has no more than %d characters."
	MsgBadChoiceFormat = `"%s" is not a valid choice.`
)

// RetryAfterUnavailable is the `Retry-After` (seconds) of an Unavailable
// answer: long enough for a database restart or failover to begin.
const RetryAfterUnavailable = "5"

// TooLong is the message of a text field longer than n characters.
func TooLong(n int) string { return fmt.Sprintf(MsgTooLongFormat, n) }

// BadChoice is the message of a choice field given value, which is not a
// choice.
func BadChoice(value string) string { return fmt.Sprintf(MsgBadChoiceFormat, value) }

// FilterChoice is the message of a choice filter given value, which is not
// a choice.
func FilterChoice(value string) string {
	return fmt.Sprintf("Select a valid choice. %s is not one of the available choices.", value)
}

// MsgNotInteger is Read the Docs' message for an integer field given
// something else (a redirect's position, for one).
const MsgNotInteger = "A valid integer is required."

// AtLeast is the message of an integer field below its minimum n.
func AtLeast(n int64) string {
	return fmt.Sprintf("Ensure this value is greater than or equal to %d.", n)
}

// AtMost is the message of an integer field above its maximum n.
func AtMost(n int64) string { return fmt.Sprintf("Ensure this value is less than or equal to %d.", n) }
