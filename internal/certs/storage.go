package certs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"strconv"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"

	"docsd/internal/artifacts"
	"docsd/internal/errs"
)

// Locker is the lease of names every node shares (*store.Store).
type Locker interface {
	TryLock(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	Unlock(ctx context.Context, name, holder string) error
}

// lockTTL is how long a lock outlives a node that died holding it;
// lockPoll is how often a node waiting for a lock tries again.
const (
	lockTTL  = 5 * time.Minute
	lockPoll = 250 * time.Millisecond
)

// storage keeps certmagic's certificates, keys and ACME accounts in the
// artifacts backend (the data directory or the S3 bucket) under
// blobs/certificates/, and takes its locks in the database, so that every
// node of an install shares one set of certificates and only one of them
// orders a given certificate at a time.
type storage struct {
	blobs artifacts.Blobs
	locks Locker
	node  string // this node's id, the first half of its holders' ids

	mu   sync.Mutex // guards n and held
	n    int
	held map[string]string // the holder id of each lock this node holds
}

var _ certmagic.Storage = (*storage)(nil)

func newStorage(blobs artifacts.Blobs, locks Locker) *storage {
	id := make([]byte, 8)
	rand.Read(id)
	return &storage{blobs: blobs, locks: locks, node: hex.EncodeToString(id), held: map[string]string{}}
}

const blobPrefix = "certificates"

func blobKey(key string) string {
	if key == "" {
		return blobPrefix
	}
	return blobPrefix + "/" + key
}

// notExist turns NotFound into fs.ErrNotExist, which certmagic expects.
func notExist(err error) error {
	if errs.Is(err, errs.NotFound) {
		return fs.ErrNotExist
	}
	return err
}

func (s *storage) Store(ctx context.Context, key string, value []byte) error {
	return s.blobs.PutBlob(ctx, blobKey(key), value)
}

func (s *storage) Load(ctx context.Context, key string) ([]byte, error) {
	b, err := s.blobs.GetBlob(ctx, blobKey(key))
	return b, notExist(err)
}

func (s *storage) Delete(ctx context.Context, key string) error {
	return notExist(s.blobs.DeleteBlob(ctx, blobKey(key)))
}

func (s *storage) Exists(ctx context.Context, key string) bool {
	_, err := s.blobs.StatBlob(ctx, blobKey(key))
	return err == nil
}

func (s *storage) List(ctx context.Context, path string, recursive bool) ([]string, error) {
	keys, err := s.blobs.ListBlobs(ctx, blobKey(path), recursive)
	if err != nil {
		return nil, notExist(err)
	}
	for i, k := range keys {
		keys[i] = k[len(blobPrefix)+1:]
	}
	return keys, nil
}

func (s *storage) Stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	info, err := s.blobs.StatBlob(ctx, blobKey(key))
	if err != nil {
		return certmagic.KeyInfo{}, notExist(err)
	}
	return certmagic.KeyInfo{Key: key, Modified: info.Modified, Size: info.Size, IsTerminal: !info.Dir}, nil
}

// Lock waits until this caller holds the lease on name: each call has a
// holder id of its own, so that two goroutines of one node exclude each
// other as two nodes do.
func (s *storage) Lock(ctx context.Context, name string) error {
	s.mu.Lock()
	s.n++
	holder := s.node + "-" + strconv.Itoa(s.n)
	s.mu.Unlock()
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	for {
		ok, err := s.locks.TryLock(ctx, "certificates/"+name, holder, lockTTL)
		if err != nil {
			return err
		}
		if ok {
			s.mu.Lock()
			s.held[name] = holder
			s.mu.Unlock()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (s *storage) Unlock(ctx context.Context, name string) error {
	s.mu.Lock()
	holder := s.held[name]
	delete(s.held, name)
	s.mu.Unlock()
	return s.locks.Unlock(context.WithoutCancel(ctx), "certificates/"+name, holder)
}
