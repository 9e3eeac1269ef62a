package main

import (
	"context"
	"fmt"
	"time"

	"docsd/internal/analytics"
)

// newAnalytics returns the recorder of page views and searches, nil when
// --analytics is off; its settings must be positive.
func (a *app) newAnalytics() (*analytics.Recorder, error) {
	if !a.settings.Analytics {
		return nil, nil
	}
	if a.settings.AnalyticsRetentionDays <= 0 {
		return nil, fmt.Errorf("--analytics-retention-days must be positive (days kept, today included)")
	}
	if a.settings.AnalyticsFlushInterval <= 0 {
		return nil, fmt.Errorf("--analytics-flush-interval must be positive (seconds)")
	}
	return analytics.New(a.store, analytics.Config{
		FlushInterval: time.Duration(a.settings.AnalyticsFlushInterval) * time.Second,
		RetentionDays: a.settings.AnalyticsRetentionDays,
		Logger:        a.logger,
	}), nil
}

// searchedHook is graph's Searched hook: the recorder's, or nil.
func (a *app) searchedHook() func(projectID int64, version, query string, total int) {
	if a.analytics == nil {
		return nil
	}
	return a.analytics.Search
}

// runAnalytics starts the recorder's loop (flushes, expiry) and returns
// the function that stops it after a last flush: call it once the
// listeners stopped serving, so that the last views are written.
func (a *app) runAnalytics() (stop func()) {
	if a.analytics == nil {
		return func() {}
	}
	go a.analytics.Run(context.Background())
	return a.analytics.Close
}
