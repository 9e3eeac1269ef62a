package artifacts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"docsd/internal/errs"
	"docsd/store"
)

// Backend is artifact storage as docsd uses it: Storage, the trees the docs
// host opens, and a readiness check. Local and S3 implement it.
type Backend interface {
	Storage
	Blobs
	// OpenHTML opens the version's current published tree (NotFound when
	// nothing was published). The caller closes it.
	OpenHTML(ctx context.Context, project, version string) (Tree, error)
	// Check reports whether the storage answers (for /readyz).
	Check(ctx context.Context) error
}

// Check implements Backend: the storage root must be a writable directory.
func (l *Local) Check(context.Context) error {
	f, err := os.CreateTemp(l.Root, ".ready-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// Pointers is where S3 keeps which tree of a version is current and which
// retired trees await deletion: the database, shared by every node.
// *store.Store implements it.
type Pointers interface {
	FindArtifactTree(ctx context.Context, project, version string) (string, error)
	SwapArtifactTree(ctx context.Context, project, version, tree string, grace time.Duration) error
	RetireArtifactTrees(ctx context.Context, project, version string, grace time.Duration) error
	DueArtifactGarbage(ctx context.Context, limit int) ([]*store.ArtifactTree, error)
	DeleteArtifactGarbage(ctx context.Context, id int64) error
}

// S3Config says where S3 storage is and how to reach it.
type S3Config struct {
	// URL is s3://BUCKET/PREFIX (the prefix may be empty).
	URL string
	// Endpoint is the server's URL (http:// or https://) for servers other
	// than AWS; buckets are then addressed by path. Empty: AWS.
	Endpoint string
	// Region defaults to us-east-1.
	Region               string
	AccessKey, SecretKey string
	// CacheDir is where a node keeps the tree files it read (required).
	CacheDir string
}

// S3 is Storage on an S3-compatible object store, in bucket Bucket under
// Prefix:
//
//	html/<project>/<version>/<tree>/<path>      immutable per-publish trees
//	downloads/<project>/<version>/<project>.<ext>
//	uploads/<key>                               upload API archives
//
// A publish uploads a new tree under a fresh ID and then swaps the
// version's pointer in the database, so a reader on any node sees the old
// tree or the new one, never a mix. Replaced trees are deleted after a
// grace period (RetireAfter) by whichever node publishes next, or by
// Collect. Tree files a node reads are kept on its local disk: trees never
// change, so the cache needs no invalidation, only cleaning (Forget).
type S3 struct {
	Client *minio.Client
	Bucket string
	Prefix string // "" or ending in "/"
	// RetireAfter is how long a replaced tree stays readable
	// (DefaultRetireAfter when zero).
	RetireAfter time.Duration
	// Changed, when set, is told after a version's tree was published or
	// removed (version "" for a whole project), so that other nodes clean
	// their caches.
	Changed func(ctx context.Context, project, version string)

	pointers Pointers
	cache    string
	cacheMu  sync.Mutex // serialises cache cleaning against itself
}

// ParseS3URL splits s3://BUCKET/PREFIX into the bucket and the prefix
// ("" or ending in "/").
func ParseS3URL(raw string) (bucket, prefix string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("artifacts URL %q: want s3://BUCKET/PREFIX", raw)
	}
	prefix = strings.Trim(u.Path, "/")
	if prefix != "" {
		prefix += "/"
	}
	return u.Host, prefix, nil
}

// NewS3 connects to the bucket of cfg (no request is sent: Check tells
// whether it answers). Pointers keep the current trees.
func NewS3(cfg S3Config, pointers Pointers) (*S3, error) {
	bucket, prefix, err := ParseS3URL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	host, secure, lookup := "s3.amazonaws.com", true, minio.BucketLookupAuto
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("S3 endpoint %q: want http://HOST[:PORT] or https://HOST[:PORT]", cfg.Endpoint)
		}
		host, secure, lookup = u.Host, u.Scheme == "https", minio.BucketLookupPath
	}
	client, err := minio.New(host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       secure,
		Region:       cfg.Region,
		BucketLookup: lookup,
	})
	if err != nil {
		return nil, err
	}
	if cfg.CacheDir == "" {
		return nil, errors.New("artifacts.NewS3: no cache directory")
	}
	if err := os.MkdirAll(cfg.CacheDir, 0o700); err != nil {
		return nil, err
	}
	return &S3{Client: client, Bucket: bucket, Prefix: prefix, pointers: pointers, cache: cfg.CacheDir}, nil
}

func (s *S3) retireAfter() time.Duration {
	if s.RetireAfter > 0 {
		return s.RetireAfter
	}
	return DefaultRetireAfter
}

func (s *S3) treePrefix(project, version, tree string) string {
	return s.Prefix + "html/" + project + "/" + version + "/" + tree + "/"
}

func (s *S3) downloadKey(project, version, format string) (string, error) {
	ext, ok := DownloadExtensions[format]
	if !ok {
		return "", errs.E(errs.Invalid, "artifacts", fmt.Sprintf("unknown download format %q", format))
	}
	if err := checkName(project, version); err != nil {
		return "", err
	}
	return s.Prefix + "downloads/" + project + "/" + version + "/" + project + "." + ext, nil
}

// Check implements Backend: the bucket must exist and answer.
func (s *S3) Check(ctx context.Context) error {
	ok, err := s.Client.BucketExists(ctx, s.Bucket)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("bucket %q does not exist", s.Bucket)
	}
	return nil
}

// PublishHTML implements Storage: the files of dir are uploaded under a new
// tree's prefix, then the version's pointer is swapped to it.
func (s *S3) PublishHTML(ctx context.Context, project, version, dir string) error {
	const op = "artifacts.PublishHTML"
	if err := checkName(project, version); err != nil {
		return err
	}
	tree := randomSuffix()
	prefix := s.treePrefix(project, version, tree)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err // symlinks and other non-regular files are not published
	})
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	if err := s.putFiles(ctx, dir, prefix, files); err != nil {
		s.removePrefix(context.WithoutCancel(ctx), prefix)
		return errs.Wrap(errs.Internal, op, err)
	}
	if err := s.pointers.SwapArtifactTree(ctx, project, version, tree, s.retireAfter()); err != nil {
		s.removePrefix(context.WithoutCancel(ctx), prefix)
		return err
	}
	s.changed(ctx, project, version)
	return nil
}

// putFiles uploads files (under dir) to prefix, a few at a time.
func (s *S3) putFiles(ctx context.Context, dir, prefix string, files []string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan string)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				rel, _ := filepath.Rel(dir, p)
				if _, err := s.Client.FPutObject(ctx, s.Bucket, prefix+filepath.ToSlash(rel), p, minio.PutObjectOptions{}); err != nil {
					cancel(err)
				}
			}
		}()
	}
	for _, p := range files {
		select {
		case work <- p:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	return context.Cause(ctx)
}

// changed tells Changed, then deletes due garbage (best effort: a failure
// leaves it for the next publish).
func (s *S3) changed(ctx context.Context, project, version string) {
	if s.Changed != nil {
		s.Changed(ctx, project, version)
	}
	s.Collect(context.WithoutCancel(ctx))
}

// Collect deletes the retired trees whose grace period is over, from the
// bucket and from this node's cache.
func (s *S3) Collect(ctx context.Context) error {
	due, err := s.pointers.DueArtifactGarbage(ctx, 100)
	if err != nil {
		return err
	}
	for _, g := range due {
		if err := s.removePrefix(ctx, s.treePrefix(g.Project, g.Version, g.Tree)); err != nil {
			return err
		}
		os.RemoveAll(filepath.Join(s.cache, g.Project, g.Version, g.Tree))
		if err := s.pointers.DeleteArtifactGarbage(ctx, g.ID); err != nil {
			return err
		}
	}
	return nil
}

// removePrefix deletes every object whose key starts with prefix.
func (s *S3) removePrefix(ctx context.Context, prefix string) error {
	objects := s.Client.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true})
	for e := range s.Client.RemoveObjects(ctx, s.Bucket, objects, minio.RemoveObjectsOptions{}) {
		if e.Err != nil {
			return e.Err
		}
	}
	return nil
}

// Forget cleans this node's cache of the version (every version when
// version is ""): trees that are no longer current are removed. Nodes call
// it when told that a version changed.
func (s *S3) Forget(ctx context.Context, project, version string) {
	if checkName(project) != nil || (version != "" && checkName(version) != nil) {
		return
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	versions := []string{version}
	if version == "" {
		versions = nil
		entries, _ := os.ReadDir(filepath.Join(s.cache, project))
		for _, e := range entries {
			versions = append(versions, e.Name())
		}
	}
	for _, v := range versions {
		current, _ := s.pointers.FindArtifactTree(ctx, project, v)
		dir := filepath.Join(s.cache, project, v)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != current {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
}

// OpenHTML implements Backend.
func (s *S3) OpenHTML(ctx context.Context, project, version string) (Tree, error) {
	const op = "artifacts.OpenHTML"
	if err := checkName(project, version); err != nil {
		return nil, errs.Wrap(errs.NotFound, op, err)
	}
	tree, err := s.pointers.FindArtifactTree(ctx, project, version)
	if err != nil {
		return nil, err
	}
	return &s3Tree{s: s, ctx: ctx, project: project, version: version, id: tree}, nil
}

// HTML implements Storage.
func (s *S3) HTML(ctx context.Context, project, version string) (fs.FS, error) {
	return s.OpenHTML(ctx, project, version)
}

// PublishDownload implements Storage. One object is replaced whole, which
// S3 does atomically.
func (s *S3) PublishDownload(ctx context.Context, project, version, format, path string) error {
	key, err := s.downloadKey(project, version, format)
	if err != nil {
		return err
	}
	if _, err := s.Client.FPutObject(ctx, s.Bucket, key, path, minio.PutObjectOptions{}); err != nil {
		return errs.Wrap(errs.Internal, "artifacts.PublishDownload", err)
	}
	return nil
}

// RemoveDownload implements Storage.
func (s *S3) RemoveDownload(ctx context.Context, project, version, format string) error {
	key, err := s.downloadKey(project, version, format)
	if err != nil {
		return err
	}
	return errs.Wrap(errs.Internal, "artifacts.RemoveDownload", s.Client.RemoveObject(ctx, s.Bucket, key, minio.RemoveObjectOptions{}))
}

// OpenDownload implements Storage.
func (s *S3) OpenDownload(ctx context.Context, project, version, format string) (File, error) {
	const op = "artifacts.OpenDownload"
	key, err := s.downloadKey(project, version, format)
	if err != nil {
		return nil, errs.Wrap(errs.NotFound, op, err)
	}
	info, err := s.Client.StatObject(ctx, s.Bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return nil, s3Error(op, err)
	}
	obj, err := s.Client.GetObject(ctx, s.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s3Error(op, err)
	}
	return &s3Object{Object: obj, info: &objectInfo{name: path.Base(key), size: info.Size, mod: info.LastModified}}, nil
}

// RemoveVersion implements Storage: the version's tree is unpublished at
// once and deleted after the grace period; its downloads are deleted.
func (s *S3) RemoveVersion(ctx context.Context, project, version string) error {
	if err := checkName(project, version); err != nil {
		return err
	}
	return s.remove(ctx, project, version, s.Prefix+"downloads/"+project+"/"+version+"/")
}

// RemoveProject implements Storage.
func (s *S3) RemoveProject(ctx context.Context, project string) error {
	if err := checkName(project); err != nil {
		return err
	}
	return s.remove(ctx, project, "", s.Prefix+"downloads/"+project+"/")
}

func (s *S3) remove(ctx context.Context, project, version, downloads string) error {
	if err := s.pointers.RetireArtifactTrees(ctx, project, version, s.retireAfter()); err != nil {
		return err
	}
	if err := s.removePrefix(ctx, downloads); err != nil {
		return errs.Wrap(errs.Internal, "artifacts.Remove", err)
	}
	s.changed(ctx, project, version)
	return nil
}

// s3Error classifies a minio error: a missing key or bucket is NotFound.
func s3Error(op string, err error) error {
	switch minio.ToErrorResponse(err).Code {
	case minio.NoSuchKey, minio.NoSuchBucket:
		return errs.E(errs.NotFound, op, errs.MsgNotFound)
	}
	return errs.Wrap(errs.Internal, op, err)
}

// s3Object is an open S3 object with fs.FileInfo.
type s3Object struct {
	*minio.Object
	info *objectInfo
}

func (o *s3Object) Stat() (fs.FileInfo, error) { return o.info, nil }

// objectInfo is the fs.FileInfo of an object or of a directory (a common
// prefix).
type objectInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (i *objectInfo) Name() string { return i.name }
func (i *objectInfo) Size() int64  { return i.size }
func (i *objectInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i *objectInfo) ModTime() time.Time         { return i.mod }
func (i *objectInfo) IsDir() bool                { return i.dir }
func (i *objectInfo) Sys() any                   { return nil }
func (i *objectInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i *objectInfo) Info() (fs.FileInfo, error) { return i, nil }

// s3Tree is a Tree in S3: files are fetched once into the node's cache and
// opened there; directories are listed from the bucket.
type s3Tree struct {
	s                    *S3
	ctx                  context.Context
	project, version, id string
}

func (t *s3Tree) ID() string   { return t.id }
func (t *s3Tree) Close() error { return nil }

func (t *s3Tree) key(name string) string {
	if name == "." {
		return t.s.treePrefix(t.project, t.version, t.id)
	}
	return t.s.treePrefix(t.project, t.version, t.id) + name
}

// Open implements fs.FS.
func (t *s3Tree) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || strings.ContainsAny(name, "\\\x00") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &s3Dir{t: t, name: name}, nil
	}
	cached := filepath.Join(t.s.cache, t.project, t.version, t.id, filepath.FromSlash(name))
	if info, err := os.Stat(cached); err == nil && info.Mode().IsRegular() {
		return os.Open(cached)
	}
	err := t.fetch(name, cached)
	if errs.Is(err, errs.NotFound) {
		if t.isDir(name) {
			return &s3Dir{t: t, name: name}, nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.Open(cached)
}

// fetch copies the object of name to the cache file dst (written under a
// temporary name and renamed, so a reader never sees half of it).
func (t *s3Tree) fetch(name, dst string) error {
	const op = "artifacts.fetch"
	obj, err := t.s.Client.GetObject(t.ctx, t.s.Bucket, t.key(name), minio.GetObjectOptions{})
	if err != nil {
		return s3Error(op, err)
	}
	defer obj.Close()
	if _, err := obj.Stat(); err != nil {
		return s3Error(op, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), incomingPrefix+"*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, obj)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return s3Error(op, err)
	}
	return nil
}

// isDir reports whether any object lies under name/.
func (t *s3Tree) isDir(name string) bool {
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	for o := range t.s.Client.ListObjects(ctx, t.s.Bucket, minio.ListObjectsOptions{Prefix: t.key(name) + "/", Recursive: true, MaxKeys: 1}) {
		return o.Err == nil
	}
	return false
}

// ReadDir implements fs.ReadDirFS, sorted by name.
func (t *s3Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	prefix := t.key(name)
	if name != "." {
		prefix += "/"
	}
	var entries []fs.DirEntry
	for o := range t.s.Client.ListObjects(t.ctx, t.s.Bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if o.Err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: o.Err}
		}
		rest := strings.TrimPrefix(o.Key, prefix)
		if dir, ok := strings.CutSuffix(rest, "/"); ok {
			entries = append(entries, &objectInfo{name: dir, dir: true})
		} else if rest != "" {
			entries = append(entries, &objectInfo{name: rest, size: o.Size, mod: o.LastModified})
		}
	}
	if len(entries) == 0 && name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// s3Dir is an open directory of an s3Tree.
type s3Dir struct {
	t    *s3Tree
	name string
	read bool
}

func (d *s3Dir) Stat() (fs.FileInfo, error) {
	return &objectInfo{name: path.Base(d.name), dir: true}, nil
}
func (d *s3Dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *s3Dir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile (all entries at the first call).
func (d *s3Dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	d.read = true
	entries, err := d.t.ReadDir(d.name)
	if err != nil && n <= 0 {
		return nil, err
	}
	return entries, err
}

// ForgetAll cleans this node's whole cache of trees that are no longer
// current (after signals may have been lost).
func (s *S3) ForgetAll(ctx context.Context) {
	entries, _ := os.ReadDir(s.cache)
	for _, e := range entries {
		s.Forget(ctx, e.Name(), "")
	}
}

// archiveKey is the object of an upload archive's key.
func (s *S3) archiveKey(key string) (string, error) {
	if !fs.ValidPath(key) || key == "." {
		return "", errs.E(errs.Invalid, "artifacts", "invalid archive key")
	}
	return s.Prefix + "uploads/" + key, nil
}

// PresignArchivePost returns an S3 presigned POST (URL and form fields)
// that stores one application/zip archive of 1 to maxSize bytes at key,
// valid for ttl: the upload API's storage step when artifacts are on S3.
func (s *S3) PresignArchivePost(ctx context.Context, key string, maxSize int64, ttl time.Duration) (string, map[string]string, error) {
	object, err := s.archiveKey(key)
	if err != nil {
		return "", nil, err
	}
	p := minio.NewPostPolicy()
	for _, err := range []error{p.SetBucket(s.Bucket), p.SetKey(object), p.SetExpires(time.Now().UTC().Add(ttl)),
		p.SetContentType("application/zip"), p.SetContentLengthRange(1, maxSize)} {
		if err != nil {
			return "", nil, errs.Wrap(errs.Internal, "artifacts.PresignArchivePost", err)
		}
	}
	u, fields, err := s.Client.PresignedPostPolicy(ctx, p)
	if err != nil {
		return "", nil, errs.Wrap(errs.Internal, "artifacts.PresignArchivePost", err)
	}
	return u.String(), fields, nil
}

// ArchiveExists reports whether an archive is stored at key.
func (s *S3) ArchiveExists(ctx context.Context, key string) (bool, error) {
	object, err := s.archiveKey(key)
	if err != nil {
		return false, err
	}
	_, err = s.Client.StatObject(ctx, s.Bucket, object, minio.StatObjectOptions{})
	if err = s3Error("artifacts.ArchiveExists", err); errs.Is(err, errs.NotFound) {
		return false, nil
	}
	return err == nil, err
}

// RemoveArchive deletes the archive at key, if any.
func (s *S3) RemoveArchive(ctx context.Context, key string) error {
	object, err := s.archiveKey(key)
	if err != nil {
		return err
	}
	return errs.Wrap(errs.Internal, "artifacts.RemoveArchive", s.Client.RemoveObject(ctx, s.Bucket, object, minio.RemoveObjectOptions{}))
}

// FetchArchive copies the archive at key to the local file dst.
func (s *S3) FetchArchive(ctx context.Context, key, dst string) error {
	object, err := s.archiveKey(key)
	if err != nil {
		return err
	}
	return s3Error("artifacts.FetchArchive", s.Client.FGetObject(ctx, s.Bucket, object, dst, minio.GetObjectOptions{}))
}
