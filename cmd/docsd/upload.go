package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"docsd/graph"
	"docsd/internal/artifacts"
	"docsd/internal/upload"
)

// uploads is the upload API wired together (see
// docs/user-guide/uploads.md): the local
// storage clients POST archives to (nil when they go to S3), the graph's settings and the
// processor the build workers hand upload builds to.
type uploads struct {
	local     *upload.Local
	graph     graph.UploadSettings
	processor *upload.Processor
}

// The upload settings' defaults.
const (
	defaultUploadMaxSize          = 1 << 30
	defaultUploadURLTTL           = 1800
	defaultUploadMaxPending       = 50
	defaultUploadMaxExtractedSize = 4 << 30
	defaultUploadMaxEntries       = 200000
	defaultUploadMaxSpools        = 4
)

// resolveUpload checks the upload settings; zero values (settings made in
// code rather than parsed) take the defaults.
func (s *Settings) resolveUpload() error {
	switch {
	case s.UploadStorage == "" && s.ArtifactsURL != "":
		s.UploadStorage = "s3"
	case s.UploadStorage == "":
		s.UploadStorage = "local"
	case s.UploadStorage == "s3" && s.ArtifactsURL == "":
		return fmt.Errorf("--upload-storage s3 needs --artifacts-url s3://BUCKET/PREFIX")
	case s.UploadStorage != "local" && s.UploadStorage != "s3":
		return fmt.Errorf("--upload-storage %q must be local or s3", s.UploadStorage)
	}
	for _, f := range []struct {
		p   *int
		def int
	}{{&s.UploadMaxSize, defaultUploadMaxSize}, {&s.UploadURLTTL, defaultUploadURLTTL}, {&s.UploadMaxPending, defaultUploadMaxPending},
		{&s.UploadMaxExtractedSize, defaultUploadMaxExtractedSize}, {&s.UploadMaxEntries, defaultUploadMaxEntries},
		{&s.UploadMaxSpools, defaultUploadMaxSpools}} {
		switch {
		case *f.p < 0:
			return fmt.Errorf("--upload-max-size, --upload-url-ttl, --upload-max-pending, --upload-max-extracted-size, --upload-max-entries and --upload-max-spools must be positive")
		case *f.p == 0:
			*f.p = f.def
		}
	}
	return nil
}

func (a *app) newUploads() *uploads {
	s := a.settings
	local := &upload.Local{Store: a.store, Dir: filepath.Join(s.DataDir, "uploads"),
		URL: s.PublicURL + upload.StoragePath, MaxSize: int64(s.UploadMaxSize), MaxSpools: s.UploadMaxSpools}
	var target interface {
		graph.UploadTarget
		upload.Archives
	} = local
	if bucket, ok := a.artifacts.(*artifacts.S3); ok && s.UploadStorage == "s3" {
		target, local = &upload.S3{Bucket: bucket, MaxSize: int64(s.UploadMaxSize)}, nil
	}
	ttl := time.Duration(s.UploadURLTTL) * time.Second
	return &uploads{
		local: local,
		graph: graph.UploadSettings{Disabled: !s.UploadAPI, TTL: ttl, MaxPending: s.UploadMaxPending, Target: target},
		processor: &upload.Processor{Store: a.store, Artifacts: a.artifacts, Archives: target,
			Limits:  upload.Limits{MaxEntries: s.UploadMaxEntries, MaxExtractedSize: int64(s.UploadMaxExtractedSize)},
			WorkDir: filepath.Join(s.DataDir, "builds", "uploads"), Lease: 60 * time.Second, RenewEvery: 20 * time.Second,
			TimeLimit: time.Duration(s.BuildTimeLimit) * time.Second,
			Published: a.indexer.Published,
			Logger:    a.logger.With("component", "upload")},
	}
}

// receiver is the storage POST handler of local storage; nil when
// archives go to S3 (the route then answers as when no storage is set).
func (u *uploads) receiver() http.Handler {
	if u.local == nil {
		return nil
	}
	return u.local
}
