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

// resolveUpload checks the upload settings.
func (s *Settings) resolveUpload() error {
	if s.UploadStorage != "local" {
		return fmt.Errorf("--upload-storage %q: only local is available (s3 needs S3 storage settings)", s.UploadStorage)
	}
	if s.UploadMaxSize <= 0 || s.UploadURLTTL <= 0 || s.UploadMaxPending <= 0 || s.UploadMaxExtractedSize <= 0 || s.UploadMaxEntries <= 0 {
		return fmt.Errorf("--upload-max-size, --upload-url-ttl, --upload-max-pending, --upload-max-extracted-size and --upload-max-entries must be positive")
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
			Logger: a.logger.With("component", "upload")},
	}
}

// receiver is the storage POST handler of local storage.
func (u *uploads) receiver() http.Handler { return u.local }
