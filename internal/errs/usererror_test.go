package errs

import (
	"errors"
	"reflect"
	"testing"
)

func TestInputPathsRoundTrip(t *testing.T) {
	tests := []struct {
		key  string
		path []string
	}{
		{"to_url", []string{"input", "toUrl"}},
		{"name", []string{"input", "name"}},
		{"readthedocs_yaml_path", []string{"input", "readthedocsYamlPath"}},
		{"external_builds_privacy_level", []string{"input", "externalBuildsPrivacyLevel"}},
		{"repository.url", []string{"input", "repository", "url"}},
		{"version.privacy_level", []string{"input", "version", "privacyLevel"}},
		{NonField, []string{"input"}},
	}
	for _, tt := range tests {
		if got := InputPath(tt.key); !reflect.DeepEqual(got, tt.path) {
			t.Errorf("InputPath(%q) = %q, want %q", tt.key, got, tt.path)
		}
		if got := FieldKey(tt.path); got != tt.key {
			t.Errorf("FieldKey(%q) = %q, want %q", tt.path, got, tt.key)
		}
	}
	// A message about a nested object as a whole stops at the object and
	// comes back as the object's key (REST nests it the same way).
	if got := InputPath("repository." + NonField); !reflect.DeepEqual(got, []string{"input", "repository"}) {
		t.Errorf("nested non-field path: %q", got)
	}
}

func TestUserErrors(t *testing.T) {
	invalid := &Error{Kind: Invalid, Op: "t", Fields: Fields{"to_url": {"Bad."}, NonField: {"Whole."}}}
	tests := []struct {
		name string
		err  error
		want []UserError
	}{
		{"invalid", fmtWrap(invalid), []UserError{
			{Path: []string{"input"}, Message: "Whole.", Code: "INVALID"},
			{Path: []string{"input", "toUrl"}, Message: "Bad.", Code: "INVALID"},
		}},
		{"conflict", &Error{Kind: Conflict, Fields: Fields{"alias": {"Taken."}}}, []UserError{
			{Path: []string{"input", "alias"}, Message: "Taken.", Code: "CONFLICT"},
		}},
		{"not found stays top-level", E(NotFound, "t", MsgNotFound), nil},
		{"forbidden with fields stays top-level", &Error{Kind: Forbidden, Fields: Fields{"x": {"y"}}}, nil},
		{"invalid without fields: an empty path", E(Invalid, "t", "bad"), []UserError{
			{Path: []string{}, Message: "bad", Code: "INVALID"},
		}},
		{"conflict without fields: an empty path", fmtWrap(E(Conflict, "t", "Already finished.")), []UserError{
			{Path: []string{}, Message: "Already finished.", Code: "CONFLICT"},
		}},
		{"invalid without text stays top-level", &Error{Kind: Invalid}, nil},
		{"nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := UserErrors(tt.err)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("UserErrors = %+v, want %+v", got, tt.want)
			}
			back := FromUserErrors("t", got)
			if tt.want == nil {
				if back != nil {
					t.Fatalf("FromUserErrors(nil) = %v", back)
				}
				return
			}
			var want *Error
			errors.As(tt.err, &want)
			if KindOf(back) != KindOf(tt.err) || !reflect.DeepEqual(FieldsOf(back), FieldsOf(tt.err)) || back.(*Error).Text() != want.Text() {
				t.Errorf("round trip: %v, want %v", back, tt.err)
			}
		})
	}
}

func fmtWrap(err error) error { return errors.Join(err) }
