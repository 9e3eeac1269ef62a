package dashboard

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
)

// The analytics pages (maintainers): traffic (page views over time, top
// pages) and search (searches over time, top searches, searches without
// results), drawn by Chart.js (static/chart.umd.min.js) from the data the
// page carries, with the same figures in tables. `?download=true` answers
// the page's counters as CSV instead, over the whole retention, as Read
// the Docs' analytics pages do.

// analytics is ProjectAnalytics as the pages read it.
type analytics struct {
	Enabled        bool
	Since, Until   string
	RetentionDays  int
	PageViewsByDay []dayCount
	SearchesByDay  []dayCount
	TopPages       []struct {
		Path, URL string
		Views     int
	}
	TopSearches            []queryCount
	SearchesWithoutResults []queryCount
	// The CSV downloads' rows.
	PageViews []struct {
		Day, Version, Path string
		Views              int
	}
	SearchQueries []struct {
		Day, Version, Query    string
		Searches, TotalResults int
	}
}

type (
	dayCount struct {
		Day   string
		Count int
	}
	queryCount struct {
		Query                  string
		Searches, TotalResults int
	}
)

// chart is one chart a page draws (static/analytics.js reads them).
type chart struct {
	ID     string   `json:"id"`
	Kind   string   `json:"kind"` // "line" over days, "bar" for a top list
	Label  string   `json:"label"`
	Labels []string `json:"labels"`
	Values []int    `json:"values"`
}

func (c *chart) add(label string, value int) {
	c.Labels, c.Values = append(c.Labels, label), append(c.Values, value)
}

// dayChart is the line chart of a count per day.
func dayChart(id, label string, days []dayCount) chart {
	c := chart{ID: id, Kind: "line", Label: label}
	for _, d := range days {
		c.add(d.Day, d.Count)
	}
	return c
}

// queryChart is the bar chart of a top list of queries.
func queryChart(id, label string, queries []queryCount) chart {
	c := chart{ID: id, Kind: "bar", Label: label}
	for _, q := range queries {
		c.add(q.Query, q.Searches)
	}
	return c
}

// analyticsRanges are the ranges a page offers, in days.
var analyticsRanges = []int{7, 30, 90}

func (d *Dashboard) mountAnalytics() {
	d.mux.HandleFunc("GET /projects/{slug}/traffic-analytics/{$}", d.signedIn(d.handleTrafficAnalytics))
	d.mux.HandleFunc("GET /projects/{slug}/search-analytics/{$}", d.signedIn(d.handleSearchAnalytics))
}

// analyticsDays is the page's ?days=, 30 when absent or not a positive
// number (the graph caps it to the retention).
func analyticsDays(r *http.Request) int {
	if n, err := strconv.Atoi(r.URL.Query().Get("days")); err == nil && n > 0 {
		return min(n, 1<<20)
	}
	return 30
}

// loadAnalytics loads a page's data (maintainers only).
func (d *Dashboard) loadAnalytics(w http.ResponseWriter, r *http.Request, s *session, query string) (*project, bool) {
	p, ok := d.loadMaintained(w, r, s, query, map[string]any{"days": analyticsDays(r)})
	if ok && p.Analytics == nil {
		d.notFound(w, r, s)
		return nil, false
	}
	return p, ok
}

func (d *Dashboard) handleTrafficAnalytics(w http.ResponseWriter, r *http.Request, s *session) {
	if r.URL.Query().Get("download") != "" {
		d.trafficCSV(w, r, s)
		return
	}
	p, ok := d.loadAnalytics(w, r, s, trafficQuery)
	if !ok {
		return
	}
	a := p.Analytics
	views := dayChart("views-chart", "Page views", a.PageViewsByDay)
	top := chart{ID: "pages-chart", Kind: "bar", Label: "Views"}
	for _, t := range a.TopPages {
		top.add(t.Path, t.Views)
	}
	d.render(w, r, s, http.StatusOK, "trafficanalytics", &page{Title: "Traffic analytics · " + p.Name, Project: p,
		Charts: []chart{views, top}, Ranges: analyticsRanges})
}

func (d *Dashboard) handleSearchAnalytics(w http.ResponseWriter, r *http.Request, s *session) {
	if r.URL.Query().Get("download") != "" {
		d.searchCSV(w, r, s)
		return
	}
	p, ok := d.loadAnalytics(w, r, s, searchAnalyticsQuery)
	if !ok {
		return
	}
	a := p.Analytics
	searches := dayChart("searches-chart", "Searches", a.SearchesByDay)
	top, none := queryChart("queries-chart", "Searches", a.TopSearches), queryChart("noresults-chart", "Searches without results", a.SearchesWithoutResults)
	d.render(w, r, s, http.StatusOK, "searchanalytics", &page{Title: "Search analytics · " + p.Name, Project: p,
		Charts: []chart{searches, top, none}, Ranges: analyticsRanges})
}

// csvDays asks for every day the retention keeps (the graph caps it).
const csvDays = 1 << 20

// trafficCSV answers the page view counters of the whole retention as CSV,
// Read the Docs' columns (Date, Version, Path, Views), newest day first.
func (d *Dashboard) trafficCSV(w http.ResponseWriter, r *http.Request, s *session) {
	var rows [][]string
	p, ok := d.pageAnalyticsRows(w, r, s, trafficCSVQuery, func(p *project) int {
		for _, v := range p.Analytics.PageViews {
			rows = append(rows, []string{v.Day + " 00:00:00", v.Version, v.Path, strconv.Itoa(v.Views)})
		}
		return len(p.Analytics.PageViews)
	})
	if ok {
		writeCSV(w, "traffic", p, []string{"Date", "Version", "Path", "Views"}, rows)
	}
}

// searchCSV answers the search counters of the whole retention as CSV:
// Read the Docs' columns (Created Date, Query, Total Results; the date is
// the day, as docsd keeps no time of a search), then the version and the
// number of searches that day.
func (d *Dashboard) searchCSV(w http.ResponseWriter, r *http.Request, s *session) {
	var rows [][]string
	p, ok := d.pageAnalyticsRows(w, r, s, searchCSVQuery, func(p *project) int {
		for _, q := range p.Analytics.SearchQueries {
			rows = append(rows, []string{q.Day + " 00:00:00", q.Query, strconv.Itoa(q.TotalResults), q.Version, strconv.Itoa(q.Searches)})
		}
		return len(p.Analytics.SearchQueries)
	})
	if ok {
		writeCSV(w, "search", p, []string{"Created Date", "Query", "Total Results", "Version", "Searches"}, rows)
	}
}

// pageAnalyticsRows runs query page after page (offset) until a page
// comes back empty; add takes each page's rows and returns their number.
// It returns the project of the first page.
func (d *Dashboard) pageAnalyticsRows(w http.ResponseWriter, r *http.Request, s *session, query string, add func(*project) int) (*project, bool) {
	var first *project
	for offset := 0; ; {
		p, ok := d.loadMaintained(w, r, s, query, map[string]any{"days": csvDays, "offset": offset})
		if !ok {
			return nil, false
		}
		if p.Analytics == nil {
			d.notFound(w, r, s)
			return nil, false
		}
		if first == nil {
			first = p
		}
		n := add(p)
		if n == 0 {
			return first, true
		}
		offset += n
	}
}

// writeCSV answers a CSV download named after the project and the days.
func writeCSV(w http.ResponseWriter, kind string, p *project, header []string, rows [][]string) {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(header)
	cw.WriteAll(rows) // flushes
	name := "docsd_" + kind + "_analytics_" + p.Slug + "_" + p.Analytics.Since + "_" + p.Analytics.Until + ".csv"
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Write(buf.Bytes())
}

// analyticsHeadData is what the analytics pages' head (the notes and the
// range links) shows: the project, the page's path element and the ranges.
type analyticsHeadData struct {
	Project *project
	Page    string
	Ranges  []int
}

func analyticsHead(p *project, pagePath string, ranges []int) analyticsHeadData {
	return analyticsHeadData{Project: p, Page: pagePath, Ranges: ranges}
}
