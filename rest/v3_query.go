package rest

import (
	"net/url"
	"slices"
	"strings"

	"docsd/internal/choices"
	"docsd/internal/errs"
)

// v3Sel is what to render of one object: the kept keys, and for each
// expanded key the selection inside it (a nil kind for a scalar expansion,
// config). It is computed from `fields`, `omit` and `expand`.
type v3Sel struct {
	kind *v3Kind
	keep []*v3Field
	exp  map[string]*v3Sel
}

// full selects every key of k that exists without expansion.
func (k *v3Kind) full() *v3Sel {
	return k.choose(v3Params{})
}

// without returns s less the named keys.
func (s *v3Sel) without(keys ...string) *v3Sel {
	out := &v3Sel{kind: s.kind, exp: s.exp}
	for _, f := range s.keep {
		if !slices.Contains(keys, f.key) {
			out.keep = append(out.keep, f)
		}
	}
	return out
}

// replacing returns s with its key of f's name rendered by f instead.
func (s *v3Sel) replacing(f *v3Field) *v3Sel {
	out := &v3Sel{kind: s.kind, exp: s.exp}
	for _, k := range s.keep {
		if k.key == f.key {
			k = f
		}
		out.keep = append(out.keep, k)
	}
	return out
}

// v3Params are the `fields`, `omit` and `expand` entries that apply at one
// level of a representation.
type v3Params struct {
	fields      []string
	fieldsGiven bool
	omit        []string
	expand      []string
}

// v3SplitEntries splits entries at their first dot into this level's names
// and, per name, the rest handed to the level below.
func v3SplitEntries(entries []string) (top map[string]bool, rest map[string][]string) {
	top, rest = map[string]bool{}, map[string][]string{}
	for _, e := range entries {
		name, sub, dotted := strings.Cut(e, ".")
		top[name] = true
		if dotted {
			rest[name] = append(rest[name], sub)
		}
	}
	return top, rest
}

// choose applies p to k: a key is kept when `fields` (if given) names it and
// `omit` does not name it undotted; an expandable key is expanded when
// `expand` names it (or holds `*`/`~all`) and it is kept. Dotted entries are
// handed to expanded keys only; unknown names are ignored.
func (k *v3Kind) choose(p v3Params) *v3Sel {
	fTop, fRest := v3SplitEntries(p.fields)
	_, oRest := v3SplitEntries(p.omit)
	eTop, eRest := v3SplitEntries(p.expand)
	all := eTop["*"] || eTop["~all"]
	s := &v3Sel{kind: k, exp: map[string]*v3Sel{}}
	for _, f := range k.fields {
		if (p.fieldsGiven && !fTop[f.key]) || slices.Contains(p.omit, f.key) {
			continue
		}
		if f.expandable && (all || eTop[f.key]) {
			s.keep = append(s.keep, f)
			child := &v3Sel{}
			if f.expandKind != nil {
				child = f.expandKind.choose(v3Params{
					fields: fRest[f.key], fieldsGiven: len(fRest[f.key]) > 0,
					omit: oRest[f.key], expand: eRest[f.key],
				})
			}
			s.exp[f.key] = child
			continue
		}
		if !f.onlyExpanded {
			s.keep = append(s.keep, f)
		}
	}
	return s
}

// v3Entries splits the last value of a query parameter on commas; ok is
// false when the parameter is absent or empty.
func v3Entries(q url.Values, name string) (entries []string, ok bool) {
	vs := q[name]
	if len(vs) == 0 || vs[len(vs)-1] == "" {
		return nil, false
	}
	return strings.Split(vs[len(vs)-1], ","), true
}

// v3Selection computes the selection of a top-level object of kind k from
// the request's query. permitted lists the expansions the route allows; on
// a list route an `expand` entry must equal one of them (`*` and `~all`
// mean all of them), on a detail route only its first segment must be
// expandable.
func v3Selection(k *v3Kind, q url.Values, permitted []string, list bool) *v3Sel {
	var p v3Params
	p.fields, p.fieldsGiven = v3Entries(q, "fields")
	p.omit, _ = v3Entries(q, "omit")
	expand, _ := v3Entries(q, "expand")
	if len(permitted) == 0 {
		expand = nil
	}
	if list {
		var kept []string
		for _, e := range expand {
			if e == "*" || e == "~all" {
				kept = permitted
				break
			}
			if slices.Contains(permitted, e) {
				kept = append(kept, e)
			}
		}
		expand = kept
	}
	p.expand = expand
	return k.choose(p)
}

// v3Filters turns a request's filter parameters into a GraphQL filter
// input. Choice filters with a value outside their table fail with the
// choice filter message, every failing filter reported; empty values don't
// filter.
type v3Filters struct {
	q      url.Values
	input  map[string]any
	failed errs.Fields
}

func v3NewFilters(q url.Values) *v3Filters {
	return &v3Filters{q: q, input: map[string]any{}, failed: errs.Fields{}}
}

func (f *v3Filters) text(name, gqlName string) {
	if v := lastValue(f.q, name); v != "" {
		f.input[gqlName] = v
	}
}

func (f *v3Filters) choice(name, gqlName string, t choices.Table) {
	v := lastValue(f.q, name)
	if v == "" {
		return
	}
	if !t.Has(v) {
		f.failed.Add(name, errs.FilterChoice(v))
		return
	}
	f.input[gqlName] = v
}

func (f *v3Filters) boolean(name, gqlName string) {
	if v, ok := boolParam(f.q, name); ok {
		f.input[gqlName] = v
	}
}

func (f *v3Filters) err() error { return f.failed.Err("rest.v3.filter") }

// v3ProjectFilters reads `name`, `slug`, `language` and
// `programming_language`.
func v3ProjectFilters(q url.Values) *v3Filters {
	f := v3NewFilters(q)
	f.text("name", "nameContains") // icontains; the graph trims it
	f.text("slug", "slugContains") // icontains; the graph trims it
	f.choice("language", "language", choices.Languages)
	f.choice("programming_language", "programmingLanguage", choices.ProgrammingLanguages)
	return f
}

// v3VersionFilters reads `slug`, `type`, `active`, `built`, `uploaded`,
// `verbose_name` and `privacy_level`.
func v3VersionFilters(q url.Values) *v3Filters {
	f := v3NewFilters(q)
	f.text("slug", "slugContains") // icontains; the graph trims it
	f.choice("type", "type", choices.VersionTypes)
	f.boolean("active", "active")
	f.boolean("built", "built")
	f.boolean("uploaded", "uploaded")
	f.text("verbose_name", "verboseName")
	f.choice("privacy_level", "privacyLevel", choices.PrivacyLevels)
	return f
}

// v3BuildFilters reads `commit` and `running`.
func v3BuildFilters(q url.Values) *v3Filters {
	f := v3NewFilters(q)
	f.text("commit", "commit")
	f.boolean("running", "running")
	return f
}
