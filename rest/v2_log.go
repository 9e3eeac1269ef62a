package rest

import (
	"net/http"

	"docsd/internal/errs"
	"strconv"
	"strings"
)

// The raw build log: `/api/v2/build/{id}.txt` (and `.txt/`), and the build
// detail with `?format=txt`. Visibility is the v2 build detail's; errors
// stay JSON.

// v2LogRoutes are the `.txt` routes, served like every v2 route.
var v2LogRoutes = []v2Route{
	{"/api/v2/build/{id:[^/.]+}.txt", "Build Instance", "The raw log of one build of a public version of a public project.", (*Server).v2BuildLog},
	{"/api/v2/build/{id:[^/.]+}.txt/", "Build Instance", "The raw log of one build of a public version of a public project.", (*Server).v2BuildLog},
}

// v2Formats are the `format` values other than json a route answers, by
// route path.
var v2Formats = map[string]map[string]v2Handle{
	"/api/v2/build/{id:[^/.]+}/": {"txt": (*Server).v2BuildLog},
}

// v2BuildLog writes RTD's restapi/log.txt for the build.
func (s *Server) v2BuildLog(w http.ResponseWriter, r *http.Request) {
	d, b, ok := s.v2Fetch(w, r, v2BuildQuery)
	if !ok {
		return
	}
	defer d.release()
	// The build must have v2's types, as for its JSON.
	check := newWriter(d)
	v2BuildShape.write(check, b)
	check.done()
	if check.err != nil {
		writeError(w, r, errs.Wrap(errs.Internal, "rest.v2", check.err))
		return
	}
	body := v2LogText(d, b)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write([]byte(body))
	}
}

// v2LogText renders build b as RTD's log template, values written raw.
func v2LogText(d *jdoc, b int) string {
	var t strings.Builder
	str := func(obj int, key string) string { return d.str(d.field(obj, key)) }
	state := str(d.field(b, "state"), "code")
	success := "Unknown"
	if state == "finished" {
		success = pyBool(d.isTrue(d.field(b, "success")))
	}
	t.WriteString("Read the Docs build information\n")
	t.WriteString("Build id: " + strconv.FormatInt(v2Int64(d, d.field(b, "id")), 10) + "\n")
	t.WriteString("Project: " + str(d.field(b, "project"), "slug") + "\n")
	t.WriteString("Version: " + str(b, "version_slug") + "\n")
	t.WriteString("Commit: " + pyStr(d, d.field(b, "commit")) + "\n")
	t.WriteString("Date: " + strings.TrimSuffix(str(b, "date"), "Z") + "\n")
	t.WriteString("State: " + state + "\n")
	t.WriteString("Success: " + success + "\n\n")
	for c, end := d.members(d.field(b, "commands")); c < end; c = d.next(c) {
		end := d.field(c, "end_time")
		endText := pyStr(d, end)
		if d.kind(end) == '"' {
			endText = strings.TrimSuffix(endText, "Z")
		}
		t.WriteString("\n[rtd-command-info] start-time: " + strings.TrimSuffix(str(c, "start_time"), "Z") + ", end-time: " + endText +
			", duration: " + pyInt(d, d.field(c, "run_time")) + ", exit-code: " + pyInt(d, d.field(c, "exit_code")) + "\n")
		t.WriteString(str(c, "command") + "\n" + str(c, "output") + "\n")
	}
	t.WriteString("\n")
	return t.String()
}

// v2Int64 returns integer n (0 when null).
func v2Int64(d *jdoc, n int) int64 {
	i, _ := strconv.ParseInt(string(d.text(n)), 10, 64)
	return i
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyStr writes string n as Python's str() would (None when null).
func pyStr(d *jdoc, n int) string {
	if k := d.kind(n); k == 0 || k == 'n' {
		return "None"
	}
	return d.str(n)
}

// pyInt writes integer n as Python's str() would (None when null).
func pyInt(d *jdoc, n int) string {
	if k := d.kind(n); k == 0 || k == 'n' {
		return "None"
	}
	return strconv.FormatInt(v2Int64(d, n), 10)
}
