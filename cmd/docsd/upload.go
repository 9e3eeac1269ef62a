package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"docsd/graph"
	"docsd/upload"
)

// uploads is the upload API wired together (api-2026.md §A4.5): the local
// storage clients POST archives to, the graph's settings and the
// processor the build workers hand upload builds to.
type uploads struct {
	local     *upload.Local
	graph     graph.UploadSettings
	processor *upload.Processor
}

// The upload settings' defaults (api-2026.md §A4.5).
const (
	defaultUploadMaxSize          = 1 << 30
	defaultUploadURLTTL           = 1800
	defaultUploadMaxPending       = 50
	defaultUploadMaxExtractedSize = 4 << 30
	defaultUploadMaxEntries       = 200000
)

// resolveUpload checks the upload settings; zero values (settings made in
// code rather than parsed) take the defaults.
func (s *Settings) resolveUpload() error {
	if s.UploadStorage == "" {
		s.UploadStorage = "local"
	}
	if s.UploadStorage != "local" {
		return fmt.Errorf("--upload-storage %q: only local is available (s3 needs S3 storage settings)", s.UploadStorage)
	}
	for _, f := range []struct {
		p   *int
		def int
	}{{&s.UploadMaxSize, defaultUploadMaxSize}, {&s.UploadURLTTL, defaultUploadURLTTL}, {&s.UploadMaxPending, defaultUploadMaxPending},
		{&s.UploadMaxExtractedSize, defaultUploadMaxExtractedSize}, {&s.UploadMaxEntries, defaultUploadMaxEntries}} {
		switch {
		case *f.p < 0:
			return fmt.Errorf("--upload-max-size, --upload-url-ttl, --upload-max-pending, --upload-max-extracted-size and --upload-max-entries must be positive")
		case *f.p == 0:
			*f.p = f.def
		}
	}
	return nil
}

func (a *app) newUploads() *uploads {
	s := a.settings
	local := &upload.Local{Store: a.store, Dir: filepath.Join(s.DataDir, "uploads"),
		URL: s.PublicURL + "/api/v3/upload/artifacts/", MaxSize: int64(s.UploadMaxSize)}
	ttl := time.Duration(s.UploadURLTTL) * time.Second
	return &uploads{
		local: local,
		graph: graph.UploadSettings{Disabled: !s.UploadAPI, TTL: ttl, MaxPending: s.UploadMaxPending, Target: local},
		processor: &upload.Processor{Store: a.store, Artifacts: a.artifacts, Archives: local,
			Limits:  upload.Limits{MaxEntries: s.UploadMaxEntries, MaxExtractedSize: int64(s.UploadMaxExtractedSize)},
			WorkDir: filepath.Join(s.DataDir, "builds", "uploads"), Lease: 60 * time.Second, RenewEvery: 20 * time.Second,
			TimeLimit: time.Duration(s.BuildTimeLimit) * time.Second,
			Logger:    a.logger.With("component", "upload")},
	}
}

// receiver is the storage POST handler of local storage.
func (u *uploads) receiver() http.Handler { return u.local }
