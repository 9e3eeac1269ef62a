// Package upload publishes prebuilt documentation sent through the upload
// API (see docs/user-guide/uploads.md): the local storage the client
// POSTs archives to, and the processing of an archive into a version's
// hosted docs.
package upload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"docsd/graph"
	"docsd/internal/artifacts"
	"docsd/internal/errs"
	"docsd/store"
)

// Local keeps archives under Dir (`<data dir>/uploads`, one file per key)
// and receives them at URL, the storage POST of local storage. It is a
// graph.UploadTarget and the handler of `/api/v3/upload/artifacts/`.
type Local struct {
	Store *store.Store
	Dir   string
	// URL is where clients POST: `{public_url}/api/v3/upload/artifacts/`.
	URL string
	// MaxSize is upload_max_size, the largest archive accepted.
	MaxSize int64
	// MaxSpools bounds the storage POSTs writing their file to disk at
	// once; 0: no bound.
	MaxSpools int

	spools atomic.Int64 // storage POSTs holding a spool slot
}

// Target returns the URL and the fields of local storage: the key, the
// token and the archive's Content-Type.
func (l *Local) Target(_ context.Context, key, token string, _ time.Duration) (string, map[string]string, error) {
	return l.URL, map[string]string{"Content-Type": "application/zip", "key": key, "token": token}, nil
}

// path is the file of key; keys are made by store.UploadKey, never by
// clients, but a key is checked to stay under Dir anyway.
func (l *Local) path(key string) (string, error) {
	if !fs.ValidPath(key) {
		return "", errs.E(errs.Invalid, "upload.Local", "invalid key")
	}
	return filepath.Join(l.Dir, filepath.FromSlash(key)), nil
}

// Exists reports whether an archive was accepted for key.
func (l *Local) Exists(_ context.Context, key string) (bool, error) {
	p, err := l.path(key)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Remove deletes the archive of key and its empty directories.
func (l *Local) Remove(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for dir := filepath.Dir(p); dir != l.Dir && strings.HasPrefix(dir, l.Dir); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// Fetch copies the archive of key to dst.
func (l *Local) Fetch(_ context.Context, key, dst string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	return artifacts.CopyFile(p, dst)
}

// The storage POST's answers.
const (
	msgNotMultipart = "Expected a multipart/form-data body with the fields key, token and file."
	msgBadToken     = "Invalid or expired upload token."
	msgContentType  = "Content-Type must be application/zip."
	msgNoFile       = "The file field is required."
	msgEmptyFile    = "The uploaded file is empty."
	msgTooLarge     = "The uploaded file is larger than %d bytes."
	msgBusy         = "Too many uploads are being received at once; try again later."
)

// StoragePath is the path of local storage's storage POST.
const StoragePath = "/api/v3/upload/artifacts/"

// envelope is what a storage POST's body may hold beyond its file: the
// multipart framing and the text fields.
const envelope = 1 << 20

// BodyLimit is the largest storage POST body read: MaxSize and the
// envelope.
func (l *Local) BodyLimit() int64 { return l.MaxSize + envelope }

// answer is a storage POST's answer other than 204.
type answer struct {
	status int
	detail string
}

// received is what a storage POST carried.
type received struct {
	fields   map[string]string
	file     string // temporary file holding the file part; "" when none
	size     int64
	tooLarge bool
	slot     bool // the request holds a spool slot (MaxSpools)
}

// ServeHTTP is the storage POST: it checks the form in the contract's order
// and stores the file as the token's archive (204), replacing an earlier
// one. The parts are read in order, and what the fields sent before the
// file part refuse is answered before anything is written: a token and key
// sent before the file (the official client sends them first) are checked
// then, and once they pass a Content-Type field; then a body whose
// Content-Length is over BodyLimit is refused (413), and so is a file
// beyond MaxSpools spooled at once (503 with Retry-After, which the client
// retries; a 429 would stop it). A token sent after the file is checked
// once the file is spooled, and every check is made again on the whole
// form before the file is kept. The token is never logged.
func (l *Local) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		writeDetail(w, http.StatusBadRequest, msgNotMultipart)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, l.BodyLimit())
	got := &received{fields: map[string]string{}}
	defer l.release(got)
	early, err := l.receive(r, got)
	switch {
	case early != nil:
		l.refuseEarly(w, r, early)
		return
	case err != nil && !got.tooLarge:
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeDetail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(msgTooLarge, l.MaxSize))
			return
		}
		writeDetail(w, http.StatusBadRequest, msgNotMultipart)
		return
	}
	if a := l.check(r.Context(), got); a != nil {
		if got.tooLarge {
			l.refuseEarly(w, r, a) // the file's rest is unread
			return
		}
		writeDetail(w, a.status, a.detail)
		return
	}
	if err := l.keep(got.file, got.fields["key"]); err != nil {
		writeDetail(w, http.StatusInternalServerError, errs.MsgServerError)
		return
	}
	got.file = ""
	w.WriteHeader(http.StatusNoContent)
}

// check answers what the whole form fails of the contract's checks, in
// their order; nil when the file is to be kept.
func (l *Local) check(ctx context.Context, got *received) *answer {
	if a := l.checkToken(ctx, got.fields); a != nil {
		return a
	}
	if ct, ok := got.fields["Content-Type"]; ok && ct != "application/zip" {
		return &answer{http.StatusBadRequest, msgContentType}
	}
	switch {
	case got.file == "" && !got.tooLarge:
		return &answer{http.StatusBadRequest, msgNoFile}
	case got.tooLarge:
		return &answer{http.StatusRequestEntityTooLarge, fmt.Sprintf(msgTooLarge, l.MaxSize)}
	case got.size == 0:
		return &answer{http.StatusBadRequest, msgEmptyFile}
	}
	return nil
}

// checkToken is the contract's second check: the token is a pending,
// unexpired upload's and key is its key.
func (l *Local) checkToken(ctx context.Context, fields map[string]string) *answer {
	u, err := l.Store.FindPendingUploadByToken(ctx, graph.HashUploadToken(fields["token"]))
	switch {
	case fields["token"] == "" || errs.Is(err, errs.NotFound) || (err == nil && u.StorageKey != fields["key"]):
		return &answer{http.StatusForbidden, msgBadToken}
	case err != nil:
		return &answer{http.StatusInternalServerError, errs.MsgServerError}
	}
	return nil
}

// beforeFile is what the fields read so far refuse before the file part
// is written (ServeHTTP); nil when the file may be spooled, holding a
// spool slot then.
func (l *Local) beforeFile(r *http.Request, got *received) *answer {
	_, hasToken := got.fields["token"]
	_, hasKey := got.fields["key"]
	if hasToken && hasKey {
		if a := l.checkToken(r.Context(), got.fields); a != nil {
			return a
		}
		if ct, ok := got.fields["Content-Type"]; ok && ct != "application/zip" {
			return &answer{http.StatusBadRequest, msgContentType}
		}
	}
	if r.ContentLength > l.BodyLimit() {
		return &answer{http.StatusRequestEntityTooLarge, fmt.Sprintf(msgTooLarge, l.MaxSize)}
	}
	if !got.slot {
		if l.MaxSpools > 0 && l.spools.Add(1) > int64(l.MaxSpools) {
			l.spools.Add(-1)
			return &answer{http.StatusServiceUnavailable, msgBusy}
		}
		got.slot = true
	}
	return nil
}

// release removes what the request left spooled and gives back its slot.
func (l *Local) release(got *received) {
	if got.file != "" {
		os.Remove(got.file)
	}
	if got.slot && l.MaxSpools > 0 {
		l.spools.Add(-1)
	}
}

// refuseEarly answers a refusal given before the body was read to its
// end. Closing the connection on an unread body resets it: a client that
// sends its whole body before it reads the answer (the official client
// does) would see a connection error, which it retries, instead of the
// answer, on which it stops. So the answer goes out at once and complete,
// and the rest of the body, within BodyLimit, is read and thrown away
// (never written), as nginx's lingering close does; the request's read
// deadlines bound that too. A body over BodyLimit, and a 503 (which the
// client retries anyway), close the connection instead.
func (l *Local) refuseEarly(w http.ResponseWriter, r *http.Request, a *answer) {
	linger := a.status != http.StatusServiceUnavailable && r.ContentLength <= l.BodyLimit() &&
		http.NewResponseController(w).EnableFullDuplex() == nil
	if !linger {
		w.Header().Set("Connection", "close")
	}
	if a.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", errs.RetryAfterUnavailable)
	}
	writeDetail(w, a.status, a.detail)
	if linger {
		http.NewResponseController(w).Flush()
		io.Copy(io.Discard, r.Body)
	}
}

// receive reads the form's parts in order: text fields, and the file part
// copied to a temporary file under Dir up to MaxSize+1 bytes. Reading stops
// at an oversized file (tooLarge), and at what the fields before the file
// part refuse (beforeFile), which it returns.
func (l *Local) receive(r *http.Request, got *received) (*answer, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		name := part.FormName()
		if name != "file" {
			b, err := io.ReadAll(io.LimitReader(part, 64<<10))
			if err != nil {
				return nil, err
			}
			if _, seen := got.fields[name]; !seen {
				got.fields[name] = string(b)
			}
			continue
		}
		if a := l.beforeFile(r, got); a != nil {
			return a, nil
		}
		if got.file != "" {
			os.Remove(got.file)
			got.file = ""
		}
		if got.file, got.size, err = l.spool(part); err != nil {
			return nil, err
		}
		if got.size > l.MaxSize {
			got.tooLarge = true
			return nil, nil
		}
	}
}

// spool copies at most MaxSize+1 bytes of r to a new temporary file.
func (l *Local) spool(r io.Reader) (string, int64, error) {
	tmp := filepath.Join(l.Dir, ".incoming")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return "", 0, err
	}
	f, err := os.CreateTemp(tmp, "part-*")
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(f, io.LimitReader(r, l.MaxSize+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), n, err
}

// keep moves a received file to key's place, replacing what was there.
func (l *Local) keep(file, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.Rename(file, p)
}

// writeDetail answers status with a complete `{"detail": msg}` body: its
// Content-Length is set, for an answer flushed before the request's body is
// read to its end (refuseEarly).
func writeDetail(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"detail": msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}
