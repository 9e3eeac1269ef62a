package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// certificateExpiry is docsd_certificate_expiry_days: for each name docsd
// holds a TLS certificate for, the days until it expires (negative once
// it has), read at scrape time.
type certificateExpiry struct {
	expiries func(ctx context.Context) map[string]time.Time
	desc     *prometheus.Desc
}

// WatchCertificates adds docsd_certificate_expiry_days{name}, read from
// expiries at each scrape.
func (m *Metrics) WatchCertificates(expiries func(ctx context.Context) map[string]time.Time) {
	m.reg.MustRegister(&certificateExpiry{expiries: expiries, desc: prometheus.NewDesc("docsd_certificate_expiry_days",
		"Days until the TLS certificate docsd holds for the name expires (negative once it has).", []string{"name"}, nil)})
}

func (c *certificateExpiry) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *certificateExpiry) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	now := time.Now()
	for name, t := range c.expiries(ctx) {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, t.Sub(now).Hours()/24, name)
	}
}
