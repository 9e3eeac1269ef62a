package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestKindsRoundTrip(t *testing.T) {
	for k := Internal; k <= lastKind; k++ {
		if got := KindFromCode(k.String()); got != k {
			t.Errorf("KindFromCode(%q) = %v, want %v", k.String(), got, k)
		}
	}
	if KindFromCode("SOMETHING_ELSE") != Internal {
		t.Error("unknown codes must be Internal")
	}
}

func TestWrappedErrorsKeepTheirKind(t *testing.T) {
	base := FieldError("store.X", "name", MsgRequired)
	wrapped := fmt.Errorf("graph: %w", base)
	if KindOf(wrapped) != Invalid || !Is(wrapped, Invalid) {
		t.Errorf("KindOf(wrapped) = %v, want Invalid", KindOf(wrapped))
	}
	var e *Error
	if !errors.As(wrapped, &e) || e.Fields["name"][0] != MsgRequired {
		t.Errorf("errors.As lost the fields: %v", e)
	}
	if got := FieldsOf(Wrap(Conflict, "outer", base)); got["name"][0] != MsgRequired {
		t.Errorf("FieldsOf through Wrap = %v", got)
	}
	if KindOf(errors.New("plain")) != Internal || Is(nil, Internal) {
		t.Error("plain errors are Internal; nil is no kind")
	}
}

func TestFieldsKeepFirstMessage(t *testing.T) {
	f := Fields{}
	f.Add("name", "first")
	f.Add("name", "second")
	f.Add("repository.url", "bad")
	if len(f["name"]) != 1 || f["name"][0] != "first" {
		t.Errorf("name = %v, want only the first message", f["name"])
	}
	if !f.Has("repository") || !f.Has("repository.url") || f.Has("homepage") {
		t.Error("Has must see nested fields")
	}
	if (Fields{}).Err("op") != nil {
		t.Error("no fields, no error")
	}
	if got := f.Err("op").Error(); got != "op: INVALID: name: first; repository.url: bad" {
		t.Errorf("Error() = %q", got)
	}
}
