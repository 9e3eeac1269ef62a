package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/htmlindex"

	"docsd/internal/errs"
)

// MaxBody is the largest request body the REST APIs read (2.5 MiB, Django's
// default; a larger one is 413); the upload API's storage POST, which has
// its own, is the exception.
const MaxBody = 5 << 19

// v3MaxBody is the largest request body accepted.
const v3MaxBody = MaxBody

// v3BodyTooLarge answers a body over MaxBody.
var v3BodyTooLarge = v3Detail(http.StatusRequestEntityTooLarge, "Request body is too large.")

// WriteBodyTooLarge answers a request whose body is over MaxBody: 413 in
// the REST APIs' error shape.
func WriteBodyTooLarge(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, v3BodyTooLarge.code, v3BodyTooLarge.body)
}

// v3Status is an answer REST decides itself, outside the error kinds:
// 413, 415 and the body parse errors.
type v3Status struct {
	code int
	body map[string]any
}

func (e *v3Status) Error() string { return fmt.Sprintf("status %d: %v", e.code, e.body) }

func v3Detail(code int, msg string) *v3Status {
	return &v3Status{code: code, body: map[string]any{"detail": msg}}
}

// v3ReadBody reads and decodes a write request's body: JSON in any charset,
// form-urlencoded and multipart with dotted names for nested fields; an
// empty body is an empty object. It returns the decoded value (not
// necessarily an object; see v3Object) or a *v3Status.
func v3ReadBody(r *http.Request) (any, error) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, v3MaxBody+1))
	if err != nil {
		return nil, v3Detail(http.StatusBadRequest, "Could not read the request body.")
	}
	if len(raw) > v3MaxBody {
		return nil, v3BodyTooLarge
	}
	if len(raw) == 0 {
		return map[string]any{}, nil
	}
	ctype := r.Header.Get("Content-Type")
	mediaType, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		mediaType, _, _ = strings.Cut(ctype, ";")
		mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	}
	switch mediaType {
	case "application/json":
		return v3DecodeJSON(raw, params["charset"])
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(raw))
		if err != nil {
			return nil, v3Detail(http.StatusBadRequest, "Form parse error - "+err.Error())
		}
		return v3FormObject(vals), nil
	case "multipart/form-data":
		form, err := multipart.NewReader(bytes.NewReader(raw), params["boundary"]).ReadForm(v3MaxBody)
		if err != nil {
			return nil, v3Detail(http.StatusBadRequest, "Multipart form parse error - "+err.Error())
		}
		defer form.RemoveAll()
		return v3FormObject(form.Value), nil
	}
	return nil, v3Detail(http.StatusUnsupportedMediaType, fmt.Sprintf("Unsupported media type %q in request.", mediaType))
}

// v3DecodeJSON decodes one JSON value, numbers kept as json.Number.
func v3DecodeJSON(raw []byte, charset string) (any, error) {
	if cs := strings.ToLower(charset); cs != "" && cs != "utf-8" && cs != "utf8" {
		enc, err := htmlindex.Get(cs)
		if err != nil {
			// Python's spellings: latin-1, utf_16, …
			enc, err = htmlindex.Get(strings.NewReplacer("-", "", "_", "").Replace(cs))
		}
		if err != nil {
			enc, err = htmlindex.Get(strings.ReplaceAll(cs, "_", "-"))
		}
		if err != nil {
			return nil, v3Detail(http.StatusBadRequest, fmt.Sprintf("JSON parse error - unknown charset %q", charset))
		}
		if raw, err = enc.NewDecoder().Bytes(raw); err != nil {
			return nil, v3Detail(http.StatusBadRequest, "JSON parse error - "+err.Error())
		}
		raw = bytes.TrimPrefix(raw, []byte("\uFEFF")) // a byte-order mark the decoder kept

	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("extra data after the JSON value")
		}
	}
	if err != nil {
		return nil, v3Detail(http.StatusBadRequest, "JSON parse error - "+err.Error())
	}
	return v, nil
}

// v3FormObject turns form values into an object: the last value of a name
// wins, and `a.b` nests b inside object a.
func v3FormObject(vals map[string][]string) map[string]any {
	out := map[string]any{}
	for name, vs := range vals {
		if len(vs) == 0 || strings.Contains(name, ".") {
			continue
		}
		out[name] = vs[len(vs)-1]
	}
	for name, vs := range vals {
		outer, inner, dotted := strings.Cut(name, ".")
		if len(vs) == 0 || !dotted {
			continue
		}
		obj, ok := out[outer].(map[string]any)
		if !ok {
			obj = map[string]any{}
			out[outer] = obj
		}
		obj[inner] = vs[len(vs)-1]
	}
	return out
}

// v3TypeWord names a JSON value's type as Read the Docs' messages do.
func v3TypeWord(v any) string {
	switch n := v.(type) {
	case []any:
		return "list"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(n.String(), ".eE") {
			return "float"
		}
		return "int"
	case map[string]any:
		return "dict"
	}
	return "NoneType"
}

// v3Object returns the body as an object, or DRF's non-field validation
// error for a body that is null or not an object.
func v3Object(v any) (map[string]any, error) {
	if obj, ok := v.(map[string]any); ok {
		return obj, nil
	}
	if v == nil {
		return nil, errs.FieldError("rest.v3.body", errs.NonField, "No data provided")
	}
	return nil, errs.FieldError("rest.v3.body", errs.NonField, v3NotADict(v))
}

func v3NotADict(v any) string {
	return "Invalid data. Expected a dictionary, but got " + v3TypeWord(v) + "."
}

// v3NumberText is a JSON number as Python's str() writes it, the text a
// string field receives when given a number.
func v3NumberText(n json.Number) string {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, ok := new(big.Int).SetString(s, 10); ok {
			return i.String()
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return s
	}
	if abs := math.Abs(f); abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	t := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(t, ".") {
		t += ".0"
	}
	return t
}

// v3Input turns a body object into a GraphQL input object with DRF's
// coercions. Absent fields stay absent and JSON null stays null, so the
// graph tells "required" from "may not be null"; a value of the wrong type
// is left out and its message recorded in failed, to be merged with the
// graph's own validation.
type v3Input struct {
	body   map[string]any
	input  map[string]any
	failed errs.Fields
	prefix string // dotted path of a nested object, "repository."
}

func v3NewInput(body map[string]any) *v3Input {
	return &v3Input{body: body, input: map[string]any{}, failed: errs.Fields{}}
}

// take returns the body's value for key when it is present and not null;
// a null is passed on as null.
func (in *v3Input) take(key, gqlName string) (any, bool) {
	v, ok := in.body[key]
	if !ok {
		return nil, false
	}
	if v == nil {
		in.input[gqlName] = nil
		return nil, false
	}
	return v, true
}

// str reads a string field: numbers become their decimal text, objects,
// arrays and booleans are "Not a valid string.".
func (in *v3Input) str(key, gqlName string) { in.text(key, gqlName, false, errs.MsgNotString) }

// slugRef reads a reference to an object by slug: numbers and booleans are
// looked up by their text; objects and arrays are "Invalid value.".
func (in *v3Input) slugRef(key, gqlName string) { in.text(key, gqlName, true, errs.MsgInvalidValue) }

// text reads a field whose value is text: a string, or a number's decimal
// text, or with bools a boolean's Python spelling; anything else is badMsg.
func (in *v3Input) text(key, gqlName string, bools bool, badMsg string) {
	v, ok := in.take(key, gqlName)
	if !ok {
		return
	}
	switch t := v.(type) {
	case string:
		in.input[gqlName] = t
	case json.Number:
		in.input[gqlName] = v3NumberText(t)
	case bool:
		if bools {
			in.input[gqlName] = map[bool]string{true: "True", false: "False"}[t]
			return
		}
		in.failed.Add(in.prefix+key, badMsg)
	default:
		in.failed.Add(in.prefix+key, badMsg)
	}
}

// integer reads an integer field as DRF's IntegerField does: a JSON
// number or a string whose text, without a trailing `.0…`, is a base-10
// integer; anything else is "A valid integer is required.". The graph
// checks the range; values beyond int64 are passed as its bounds.
func (in *v3Input) integer(key, gqlName string) {
	in.integerText(key, gqlName, true, func(string) string { return errs.MsgNotInteger })
}

// intChoice reads a choice field whose values are integers (DRF's
// ChoiceField compares str(value)): a JSON number or a string that is
// exactly a base-10 integer; anything else is `"<text>" is not a valid
// choice.`. The graph checks the choices.
func (in *v3Input) intChoice(key, gqlName string) {
	in.integerText(key, gqlName, false, errs.BadChoice)
}

// integerText reads an integer from a value's text as Python's str()
// writes it, with or without DRF's tolerance of a trailing `.0…`; badMsg
// makes the message from that text.
func (in *v3Input) integerText(key, gqlName string, decimalTail bool, badMsg func(text string) string) {
	v, ok := in.take(key, gqlName)
	if !ok {
		return
	}
	var text string
	switch t := v.(type) {
	case json.Number:
		text = v3NumberText(t)
	case string:
		text = t
	case bool:
		text = map[bool]string{true: "True", false: "False"}[t]
	default:
		b, _ := json.Marshal(t)
		text = string(b)
	}
	digits := text
	if decimalTail {
		digits = v3IntegerTail.ReplaceAllString(strings.TrimSpace(text), "")
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		in.failed.Add(in.prefix+key, badMsg(text))
		return
	}
	switch {
	case n.IsInt64():
		in.input[gqlName] = n.Int64()
	case n.Sign() > 0:
		in.input[gqlName] = int64(math.MaxInt64)
	default:
		in.input[gqlName] = int64(math.MinInt64)
	}
}

// v3IntegerTail is the `.0…` an integer's text may end with (DRF).
var v3IntegerTail = regexp.MustCompile(`\.0*$`)

var (
	v3TrueWords  = []string{"true", "True", "TRUE", "t", "T", "yes", "y", "Y", "YES", "on", "On", "ON", "1"}
	v3FalseWords = []string{"false", "False", "FALSE", "f", "F", "no", "n", "N", "NO", "off", "Off", "OFF", "0"}
)

// boolean reads a boolean field: true, false, 1, 0 and the strings of
// v3TrueWords and v3FalseWords.
func (in *v3Input) boolean(key, gqlName string) {
	v, ok := in.take(key, gqlName)
	if !ok {
		return
	}
	switch t := v.(type) {
	case bool:
		in.input[gqlName] = t
		return
	case json.Number:
		if f, err := t.Float64(); err == nil && (f == 0 || f == 1) {
			in.input[gqlName] = f == 1
			return
		}
	case string:
		for _, w := range v3TrueWords {
			if t == w {
				in.input[gqlName] = true
				return
			}
		}
		for _, w := range v3FalseWords {
			if t == w {
				in.input[gqlName] = false
				return
			}
		}
	}
	in.failed.Add(in.prefix+key, errs.MsgNotBoolean)
}

// tags reads a tag list the way django-taggit's TagListSerializerField
// does: an array of strings, or a string holding one as JSON (form bodies).
// Trimming, blanks and duplicates are the graph's.
func (in *v3Input) tags(key, gqlName string) {
	v, ok := in.take(key, gqlName)
	if !ok {
		return
	}
	if s, isStr := v.(string); isStr {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var parsed any
		if err := dec.Decode(&parsed); err != nil || dec.More() {
			in.failed.Add(in.prefix+key, "Invalid json list. A tag list submitted in string form must be valid json.")
			return
		}
		if _, isList := parsed.([]any); !isList {
			in.failed.Add(in.prefix+key, `Expected a list of items but got type "str".`)
			return
		}
		v = parsed
	}
	items, isList := v.([]any)
	if !isList {
		in.failed.Add(in.prefix+key, fmt.Sprintf("Expected a list of items but got type %q.", v3TypeWord(v)))
		return
	}
	tags := make([]string, 0, len(items))
	for _, it := range items {
		s, isStr := it.(string)
		if !isStr {
			in.failed.Add(in.prefix+key, "All list items must be of string type.")
			return
		}
		tags = append(tags, s)
	}
	in.input[gqlName] = tags
}

// slugList reads a list of slugs (project create's `teams`): a JSON array
// of strings; anything else is "Expected a list of items but got type
// …", an item that is no string "Object with slug=… does not exist.".
func (in *v3Input) slugList(key, gqlName string) {
	v, ok := in.take(key, gqlName)
	if !ok {
		return
	}
	items, isList := v.([]any)
	if !isList {
		in.failed.Add(in.prefix+key, fmt.Sprintf("Expected a list of items but got type %q.", v3TypeWord(v)))
		return
	}
	slugs := make([]string, 0, len(items))
	for _, it := range items {
		s, isStr := it.(string)
		if !isStr {
			in.failed.Add(in.prefix+key, fmt.Sprintf("Object with slug=%v does not exist.", it))
			return
		}
		slugs = append(slugs, s)
	}
	in.input[gqlName] = slugs
}

// object reads a nested object field with fill; a non-object is reported
// on the object's own non_field_errors.
func (in *v3Input) object(key, gqlName string, fill func(sub *v3Input)) {
	v, ok := in.take(key, gqlName)
	if !ok {
		return
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		in.failed.Add(in.prefix+key+"."+errs.NonField, v3NotADict(v))
		return
	}
	sub := &v3Input{body: obj, input: map[string]any{}, failed: in.failed, prefix: in.prefix + key + "."}
	fill(sub)
	in.input[gqlName] = sub.input
}

// v3MergeFields adds the graph's messages to REST's own, except on fields
// REST already reported: a field, or an object and a field inside it, never
// get messages from both, and an object REST found not to be one
// (`x.non_field_errors`) gets no messages about its fields.
func v3MergeFields(own, graph errs.Fields) errs.Fields {
	out := errs.Fields{}
	for k, v := range own {
		out[k] = v
	}
	for k, v := range graph {
		clash := false
		for o := range own {
			o = strings.TrimSuffix(o, "."+errs.NonField)
			if o == k || strings.HasPrefix(o, k+".") || strings.HasPrefix(k, o+".") {
				clash = true
				break
			}
		}
		if !clash {
			out[k] = v
		}
	}
	return out
}
