// Package metrics exposes docsd's Prometheus metrics (`GET /metrics`): HTTP
// requests and their latency by route, bytes of documentation served, and
// what the database says about builds (by state and outcome, queue depth,
// duration). Build figures are read from the database at scrape time, so
// every node reports the same numbers whichever node ran the builds.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"docsd/store"
)

// BuildStatser is the store's side of the build metrics.
type BuildStatser interface {
	BuildStats(ctx context.Context) (*store.BuildStats, error)
}

// Metrics holds docsd's collectors in a registry of their own (no global
// state: tests make as many as they like).
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	docsBytes prometheus.Counter
	// series keeps each label set's counter and histogram (seriesKey →
	// *series), so that a request costs no label hashing; the label sets
	// are few (Route, normalMethod, status codes).
	series sync.Map
}

type seriesKey struct {
	route, method string
	code          int
}

type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// New returns metrics whose build figures come from builds, with the Go
// runtime and process collectors and docsd_build_info{version} registered
// beside them.
func New(builds BuildStatser, version string, logger *slog.Logger) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docsd_http_requests_total",
			Help: "HTTP requests answered, by route, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docsd_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route and method.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
		docsBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "docsd_docs_bytes_served_total",
			Help: "Bytes of response bodies sent by the documentation host.",
		}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.docsBytes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&buildCollector{builds: builds, logger: logger},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "docsd_build_info",
			Help:        "Always 1; the version label is the running docsd's version.",
			ConstLabels: prometheus.Labels{"version": version},
		}, func() float64 { return 1 }))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Observe records one answered request. route must come from a small,
// fixed set of names (see Route): labels are never raw paths.
func (m *Metrics) Observe(route, method string, code, bytes int, d time.Duration) {
	method = normalMethod(method)
	key := seriesKey{route, method, code}
	s, ok := m.series.Load(key)
	if !ok {
		s, _ = m.series.LoadOrStore(key, &series{
			requests: m.requests.WithLabelValues(route, method, strconv.Itoa(code)),
			latency:  m.latency.WithLabelValues(route, method),
		})
	}
	s.(*series).requests.Inc()
	s.(*series).latency.Observe(d.Seconds())
	if route == RouteDocs {
		m.docsBytes.Add(float64(bytes))
	}
}

// normalMethod keeps the method label bounded: unknown methods are "other".
func normalMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// buildCollector reads build figures from the database on every scrape.
type buildCollector struct {
	builds BuildStatser
	logger *slog.Logger
}

var (
	buildsDesc = prometheus.NewDesc("docsd_builds",
		"Builds in the database, by state and outcome (success or failure once finished).",
		[]string{"state", "outcome"}, nil)
	queueDesc = prometheus.NewDesc("docsd_build_queue_depth",
		"Triggered builds waiting for a worker.", nil, nil)
	durationDesc = prometheus.NewDesc("docsd_build_duration_seconds",
		"Length of finished builds.", nil, nil)
	scrapeErrDesc = prometheus.NewDesc("docsd_build_stats_up",
		"1 when the build figures could be read from the database, 0 otherwise.", nil, nil)
)

func (c *buildCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- buildsDesc
	ch <- queueDesc
	ch <- durationDesc
	ch <- scrapeErrDesc
}

func (c *buildCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.builds.BuildStats(ctx)
	if err != nil {
		c.logger.Warn("metrics: reading build figures", "err", err)
		ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 1)
	for _, b := range st.Counts {
		ch <- prometheus.MustNewConstMetric(buildsDesc, prometheus.GaugeValue, float64(b.Count), b.State, b.Outcome)
	}
	ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(st.QueueDepth))
	buckets := make(map[float64]uint64, len(store.BuildDurationBuckets))
	for i, ub := range store.BuildDurationBuckets {
		buckets[ub] = st.DurationBuckets[i]
	}
	ch <- prometheus.MustNewConstHistogram(durationDesc, st.DurationCount, st.DurationSum, buckets)
}
