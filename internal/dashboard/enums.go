package dashboard

import (
	"strings"

	"docsd/internal/choices"
	"docsd/internal/errs"
)

// enumValue is a form value the dashboard sends to a GraphQL enum, under
// the API field name its messages use (privacy_level, repository.type) and
// with the choices table its select lists.
type enumValue struct {
	field, value string
	table        choices.Table
}

// checkEnums returns the API's messages, as an Invalid error, for the
// values that are none of their table's codes; nil when all are. The
// selects list only codes, so this is a forged or stale form: GraphQL would
// refuse such a value as a malformed operation rather than as a field
// error, so the form is checked before it is sent.
func checkEnums(values ...enumValue) error {
	f := errs.Fields{}
	for _, v := range values {
		switch {
		case strings.TrimSpace(v.value) == "":
			f.Add(v.field, errs.MsgNotBlank)
		case !v.table.Has(v.value):
			f.Add(v.field, errs.BadChoice(v.value))
		}
	}
	return f.Err("dashboard")
}
