package rest

import (
	"strings"
	"unicode/utf8"

	"docsd/internal/choices"
	"docsd/internal/errs"
)

// v3Choice is a REST choice field whose GraphQL input is an enum. GraphQL
// refuses a value outside an enum when it validates the operation, before
// any resolver runs, so REST checks the value itself and answers its own
// field message; only a code of the table reaches the graph. An enum's
// values are its table's codes (graph's TestEnumsMatchChoices holds them
// equal), so a checked code is the enum value as it is.
type v3Choice struct {
	table choices.Table
	// trim reads the value as the field's other string rules do: trimmed,
	// and blank is "may not be blank" rather than not a choice.
	trim bool
}

// The REST choice fields sent to GraphQL enums, one table a choice.
var (
	v3PrivacyLevel     = v3Choice{table: choices.PrivacyLevels, trim: true}
	v3VersionPrivacy   = v3Choice{table: choices.PrivacyLevels}
	v3RepositoryType   = v3Choice{table: choices.RepoTypes, trim: true}
	v3RedirectType     = v3Choice{table: choices.RedirectTypes, trim: true}
	v3VersioningScheme = v3Choice{table: choices.VersioningSchemes, trim: true}
	v3UploadStatus     = v3Choice{table: choices.UploadStatuses}
)

// choice reads a choice field: its text as str reads it, then the code
// checked against c's table. A value that is not a code is left out of the
// input and its message recorded in failed.
func (in *v3Input) choice(key, gqlName string, c v3Choice) {
	in.str(key, gqlName)
	s, ok := in.input[gqlName].(string)
	if !ok {
		return // absent, null, or already reported
	}
	msg := ""
	if c.trim {
		s = strings.TrimSpace(s)
		switch {
		case strings.ContainsRune(s, 0) || !utf8.ValidString(s):
			msg = errs.MsgNullCharacters
		case s == "":
			msg = errs.MsgNotBlank
		}
	}
	if msg == "" && !c.table.Has(s) {
		msg = errs.BadChoice(s)
	}
	if msg != "" {
		delete(in.input, gqlName)
		in.failed.Add(in.prefix+key, msg)
		return
	}
	in.input[gqlName] = s
}
