package rest

import (
	"net/http"
	"strconv"
	"strings"
)

// The raw build log of api-2026.md §A4.4: `/api/v2/build/{id}.txt` (and
// `.txt/`), and the build detail with `?format=txt`. Visibility is the v2
// build detail's; errors stay JSON.

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
	b, ok := v2Fetch[v2Build](s, w, r, v2BuildQuery)
	if !ok {
		return
	}
	body := v2LogText(b)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write([]byte(body))
	}
}

// v2LogText renders a build as RTD's log template, values written raw.
func v2LogText(b *v2Build) string {
	var t strings.Builder
	success := "Unknown"
	if b.State.value == "finished" {
		success = pyBool(b.Success)
	}
	t.WriteString("Read the Docs build information\n")
	t.WriteString("Build id: " + strconv.FormatInt(b.ID, 10) + "\n")
	t.WriteString("Project: " + b.ProjectSlug + "\n")
	t.WriteString("Version: " + b.VersionSlug + "\n")
	t.WriteString("Commit: " + pyStr(b.Commit) + "\n")
	t.WriteString("Date: " + string(b.Date) + "\n")
	t.WriteString("State: " + b.State.value + "\n")
	t.WriteString("Success: " + success + "\n\n")
	for _, c := range b.Commands {
		var end *string
		if c.EndTime != nil {
			e := string(*c.EndTime)
			end = &e
		}
		t.WriteString("\n[rtd-command-info] start-time: " + string(c.StartTime) + ", end-time: " + pyStr(end) +
			", duration: " + pyInt(c.RunTime) + ", exit-code: " + pyInt(c.ExitCode) + "\n")
		t.WriteString(c.Command + "\n" + c.Output + "\n")
	}
	t.WriteString("\n")
	return t.String()
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func pyStr(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}

func pyInt(n *int64) string {
	if n == nil {
		return "None"
	}
	return strconv.FormatInt(*n, 10)
}
