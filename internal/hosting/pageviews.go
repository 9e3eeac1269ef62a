package hosting

import (
	"net/http"
	"strings"

	"docsd/store"
)

// pageView is a page view to count once its answer is known to be a whole
// 200: the page's project, version and file inside the version.
type pageView struct {
	project       int64
	version, path string
}

// notePageView marks the page being served as one to count, when the
// analytics count this project's pages and name is an HTML page. The view
// is counted (countView) only if the answer turns out to be a whole 200
// to a GET (wroteWhole), and it goes with a kept answer, so that replays
// count too.
func (rq *request) notePageView(x *store.Project, ver *store.Version, name string, pf *publishedFile) {
	if rq.h.analytics == nil || x.AnalyticsDisabled || ver == nil || !htmlType(pf.hType) {
		return
	}
	rq.view = &pageView{project: x.ID, version: ver.Slug, path: "/" + name}
}

// htmlType reports whether a Content-Type header value is HTML's.
func htmlType(h []string) bool {
	return len(h) == 1 && strings.HasPrefix(h[0], "text/html")
}

// writeWholeHeader is the package's writeWholeHeader, noting that the
// answer is a whole 200 (for countView).
func (rq *request) writeWholeHeader(hLength, hModified []string) {
	rq.wroteWhole = true
	writeWholeHeader(rq.w, hLength, hModified)
}

// countView counts the request's page view, if it has one (notePageView),
// its answer was a whole 200 to a GET, and the reader is not a bot.
func (rq *request) countView() {
	v := rq.view
	if v == nil || !rq.wroteWhole || rq.r.Method != http.MethodGet {
		return
	}
	if ua := rq.r.Header["User-Agent"]; len(ua) == 0 || rq.h.bots.IsBot(ua[0]) {
		return
	}
	rq.h.analytics.PageView(v.project, v.version, v.path)
}

// countReplay counts the page view of kept answer a replayed to a reader
// with this User-Agent (the header's values).
func (h *Handler) countReplay(a *answer, userAgent []string) {
	if a.view == nil || len(userAgent) == 0 || h.bots.IsBot(userAgent[0]) {
		return
	}
	h.analytics.Count(a.view)
}
