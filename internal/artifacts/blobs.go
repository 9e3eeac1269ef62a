package artifacts

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"docsd/internal/errs"
)

// Blobs are small named objects kept beside the docs, under blobs/ in
// the storage root or the bucket's prefix: the TLS certificates and ACME
// accounts every node shares. Keys are slash-separated relative paths
// (fs.ValidPath). A missing key is a NotFound error.
type Blobs interface {
	// PutBlob stores data at key, replacing what was there.
	PutBlob(ctx context.Context, key string, data []byte) error
	// GetBlob returns the data stored at key.
	GetBlob(ctx context.Context, key string) ([]byte, error)
	// DeleteBlob removes key, or every key under it when it is a prefix.
	DeleteBlob(ctx context.Context, key string) error
	// StatBlob describes key: a stored blob, or a prefix of some (Dir).
	StatBlob(ctx context.Context, key string) (BlobInfo, error)
	// ListBlobs returns the keys under prefix: the blobs and the prefixes
	// just below it, or every blob below it when recursive.
	ListBlobs(ctx context.Context, prefix string, recursive bool) ([]string, error)
}

// BlobInfo describes a blob key.
type BlobInfo struct {
	Size     int64
	Modified time.Time
	Dir      bool // a prefix of other keys, not a blob
}

func blobKey(op, key string) error {
	if !fs.ValidPath(key) || key == "." {
		return errs.E(errs.Invalid, op, "invalid blob key")
	}
	return nil
}

// blobPath is key's file under Local's root.
func (l *Local) blobPath(op, key string) (string, error) {
	if err := blobKey(op, key); err != nil {
		return "", err
	}
	return filepath.Join(l.Root, "blobs", filepath.FromSlash(key)), nil
}

// PutBlob implements Blobs: the file is written beside and renamed into
// place, so a reader sees the old data or the new.
func (l *Local) PutBlob(ctx context.Context, key string, data []byte) error {
	const op = "artifacts.PutBlob"
	p, err := l.blobPath(op, key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".blob-*")
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return errs.Wrap(errs.Internal, op, err)
	}
	return nil
}

// GetBlob implements Blobs.
func (l *Local) GetBlob(ctx context.Context, key string) ([]byte, error) {
	const op = "artifacts.GetBlob"
	p, err := l.blobPath(op, key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errs.Wrap(errs.NotFound, op, err)
	}
	return b, errs.Wrap(errs.Internal, op, err)
}

// DeleteBlob implements Blobs.
func (l *Local) DeleteBlob(ctx context.Context, key string) error {
	const op = "artifacts.DeleteBlob"
	p, err := l.blobPath(op, key)
	if err != nil {
		return err
	}
	return errs.Wrap(errs.Internal, op, os.RemoveAll(p))
}

// StatBlob implements Blobs.
func (l *Local) StatBlob(ctx context.Context, key string) (BlobInfo, error) {
	const op = "artifacts.StatBlob"
	p, err := l.blobPath(op, key)
	if err != nil {
		return BlobInfo{}, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return BlobInfo{}, errs.Wrap(errs.NotFound, op, err)
	}
	if err != nil {
		return BlobInfo{}, errs.Wrap(errs.Internal, op, err)
	}
	return BlobInfo{Size: fi.Size(), Modified: fi.ModTime(), Dir: fi.IsDir()}, nil
}

// ListBlobs implements Blobs.
func (l *Local) ListBlobs(ctx context.Context, prefix string, recursive bool) ([]string, error) {
	const op = "artifacts.ListBlobs"
	p, err := l.blobPath(op, prefix)
	if err != nil {
		return nil, err
	}
	var keys []string
	if !recursive {
		entries, err := os.ReadDir(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errs.Wrap(errs.NotFound, op, err)
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".blob-") {
				keys = append(keys, path.Join(prefix, e.Name()))
			}
		}
		return keys, errs.Wrap(errs.Internal, op, err)
	}
	err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".blob-") {
			return err
		}
		rel, err := filepath.Rel(p, f)
		keys = append(keys, path.Join(prefix, filepath.ToSlash(rel)))
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errs.Wrap(errs.NotFound, op, err)
	}
	return keys, errs.Wrap(errs.Internal, op, err)
}

// blobObject is key's object in the bucket.
func (s *S3) blobObject(op, key string) (string, error) {
	if err := blobKey(op, key); err != nil {
		return "", err
	}
	return s.Prefix + "blobs/" + key, nil
}

// PutBlob implements Blobs.
func (s *S3) PutBlob(ctx context.Context, key string, data []byte) error {
	const op = "artifacts.PutBlob"
	object, err := s.blobObject(op, key)
	if err != nil {
		return err
	}
	_, err = s.Client.PutObject(ctx, s.Bucket, object, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
	return s3Error(op, err)
}

// GetBlob implements Blobs.
func (s *S3) GetBlob(ctx context.Context, key string) ([]byte, error) {
	const op = "artifacts.GetBlob"
	object, err := s.blobObject(op, key)
	if err != nil {
		return nil, err
	}
	o, err := s.Client.GetObject(ctx, s.Bucket, object, minio.GetObjectOptions{})
	if err != nil {
		return nil, s3Error(op, err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	return b, s3Error(op, err)
}

// DeleteBlob implements Blobs.
func (s *S3) DeleteBlob(ctx context.Context, key string) error {
	const op = "artifacts.DeleteBlob"
	object, err := s.blobObject(op, key)
	if err != nil {
		return err
	}
	if err := s3Error(op, s.Client.RemoveObject(ctx, s.Bucket, object, minio.RemoveObjectOptions{})); err != nil && !errs.Is(err, errs.NotFound) {
		return err
	}
	return s.removePrefix(ctx, object+"/")
}

// StatBlob implements Blobs.
func (s *S3) StatBlob(ctx context.Context, key string) (BlobInfo, error) {
	const op = "artifacts.StatBlob"
	object, err := s.blobObject(op, key)
	if err != nil {
		return BlobInfo{}, err
	}
	info, err := s.Client.StatObject(ctx, s.Bucket, object, minio.StatObjectOptions{})
	if err = s3Error(op, err); err == nil {
		return BlobInfo{Size: info.Size, Modified: info.LastModified}, nil
	}
	if !errs.Is(err, errs.NotFound) {
		return BlobInfo{}, err
	}
	for o := range s.Client.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: object + "/", MaxKeys: 1}) {
		if o.Err != nil {
			return BlobInfo{}, s3Error(op, o.Err)
		}
		return BlobInfo{Dir: true}, nil
	}
	return BlobInfo{}, err
}

// ListBlobs implements Blobs.
func (s *S3) ListBlobs(ctx context.Context, prefix string, recursive bool) ([]string, error) {
	const op = "artifacts.ListBlobs"
	object, err := s.blobObject(op, prefix)
	if err != nil {
		return nil, err
	}
	var keys []string
	base := s.Prefix + "blobs/"
	for o := range s.Client.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: object + "/", Recursive: recursive}) {
		if o.Err != nil {
			return nil, s3Error(op, o.Err)
		}
		keys = append(keys, strings.TrimSuffix(strings.TrimPrefix(o.Key, base), "/"))
	}
	if len(keys) == 0 {
		return nil, errs.E(errs.NotFound, op, errs.MsgNotFound)
	}
	return keys, nil
}
