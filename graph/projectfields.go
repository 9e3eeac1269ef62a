package graph

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"

	"docsd/internal/choices"
	"docsd/internal/errs"
	"docsd/store"
)

// The checks of project fields that import and update share.

// checkTags applies the tag list rules to a list whose items are strings
// already (REST reports items of other types): each tag trimmed, empty ones
// dropped, at most 100 characters, duplicates removed keeping the first.
// null is "may not be null".
func checkTags(f errs.Fields, in graphql.Omittable[[]string]) ([]string, bool) {
	if !in.IsSet() {
		return nil, false
	}
	if in.Value() == nil {
		f.Add("tags", errs.MsgNotNull)
		return nil, false
	}
	out := []string{}
	seen := map[string]bool{}
	for _, t := range in.Value() {
		t = strings.TrimSpace(t)
		if strings.ContainsRune(t, 0) || !utf8.ValidString(t) {
			f.Add("tags", errs.MsgNullCharacters)
			return nil, false
		}
		if utf8.RuneCountInString(t) > 100 {
			f.Add("tags", errs.TooLong(100))
			return nil, false
		}
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, true
}

// checkChoiceField checks an optional choice field: null is "may not be
// null", blank "may not be blank", another value outside t "is not a valid
// choice".
func checkChoiceField(f errs.Fields, field string, in graphql.Omittable[*string], t choices.Table) (string, bool) {
	v, ok := checkString(f, field, in, strRule{})
	if !ok || !checkChoice(f, field, v, t) {
		return "", false
	}
	return v, true
}

// yamlPathForbidden are the characters a configuration path may not hold.
const yamlPathForbidden = "[]{}()`'\"\\%&<>|,"

// checkYamlPath applies the readthedocs_yaml_path rules (Read the Docs'
// validate_build_config_file): the first failing rule is reported.
// It returns the trimmed path, "" for null or blank (no custom path), and
// whether the field was sent and valid.
func checkYamlPath(f errs.Fields, in graphql.Omittable[*string]) (string, bool) {
	const field = "readthedocs_yaml_path"
	if !in.IsSet() {
		return "", false
	}
	if in.Value() == nil {
		return "", true
	}
	p, ok := checkString(f, field, in, strRule{allowBlank: true, max: 1024})
	if !ok {
		return "", false
	}
	msg := ""
	switch {
	case p == "":
	case strings.HasPrefix(p, "/"):
		msg = "Use a relative path. It should not begin with '/'. The path is relative to the root of your repository."
	case strings.HasSuffix(p, "/"):
		msg = "The path cannot end with '/', as it cannot be a directory."
	case strings.Contains(p, ".."):
		msg = "Found invalid sequence in path: '..'"
	case strings.ContainsAny(p, yamlPathForbidden):
		msg = "Found invalid character. Avoid these characters: " + yamlPathForbidden
	case p != ".readthedocs.yaml" && !strings.HasSuffix(p, "/.readthedocs.yaml"):
		msg = "The only allowed filename is .readthedocs.yaml."
	}
	if msg != "" {
		f.Add(field, msg)
		return "", false
	}
	return p, true
}

// checkScheme validates versioning_scheme and single_version of an update
// together: when both are sent they must agree, else single_version gets
// "Contradicts versioning_scheme ...".
func checkScheme(f errs.Fields, scheme graphql.Omittable[*string], single graphql.Omittable[*bool], upd *store.ProjectUpdate) {
	s, schemeOK := checkChoiceField(f, "versioning_scheme", scheme, choices.VersioningSchemes)
	b, singleOK := checkBool(f, "single_version", single, false)
	if schemeOK && singleOK && b != choices.IsSingleVersion(s) {
		f.Add("single_version", fmt.Sprintf("Contradicts versioning_scheme %q.", s))
		return
	}
	if schemeOK {
		upd.VersioningScheme = &s
	}
	if singleOK {
		upd.SingleVersion = &b
	}
}
