package upload

import (
	"context"
	"time"

	"docsd/internal/artifacts"
)

// S3 keeps archives in the artifacts bucket (under uploads/): clients POST
// them straight to S3 with a presigned POST, and the docs token never
// reaches the bucket. It is a
// graph.UploadTarget and the processor's Archives.
type S3 struct {
	Bucket *artifacts.S3
	// MaxSize is upload_max_size, enforced by the POST policy.
	MaxSize int64
}

// Target returns the presigned POST of key; the upload token is not among
// the fields.
func (s *S3) Target(ctx context.Context, key, _ string, ttl time.Duration) (string, map[string]string, error) {
	return s.Bucket.PresignArchivePost(ctx, key, s.MaxSize, ttl)
}

// Exists reports whether the client's POST stored an archive for key.
func (s *S3) Exists(ctx context.Context, key string) (bool, error) {
	return s.Bucket.ArchiveExists(ctx, key)
}

// Remove deletes the archive of key, if any.
func (s *S3) Remove(ctx context.Context, key string) error { return s.Bucket.RemoveArchive(ctx, key) }

// Fetch copies the archive of key to dst.
func (s *S3) Fetch(ctx context.Context, key, dst string) error {
	return s.Bucket.FetchArchive(ctx, key, dst)
}
