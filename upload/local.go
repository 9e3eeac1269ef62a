// Package upload publishes prebuilt documentation sent through the upload
// API (api-2026.md §A4.5): the local storage the client POSTs archives to,
// and the processing of an archive into a version's hosted docs.
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
	"strings"
	"time"

	"docsd/artifacts"
	"docsd/errs"
	"docsd/graph"
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

// The storage POST's answers (api-2026.md §A4.5).
const (
	msgNotMultipart = "Expected a multipart/form-data body with the fields key, token and file."
	msgBadToken     = "Invalid or expired upload token."
	msgContentType  = "Content-Type must be application/zip."
	msgNoFile       = "The file field is required."
	msgEmptyFile    = "The uploaded file is empty."
	msgTooLarge     = "The uploaded file is larger than %d bytes."
)

// received is what a storage POST carried.
type received struct {
	fields   map[string]string
	file     string // temporary file holding the file part; "" when none
	size     int64
	tooLarge bool
}

// ServeHTTP is the storage POST: it checks the form in the contract's order
// and stores the file as the token's archive (204), replacing an earlier
// one. The token is never logged.
func (l *Local) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		writeDetail(w, http.StatusBadRequest, msgNotMultipart)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, l.MaxSize+1<<20)
	got, err := l.receive(r)
	if got.file != "" {
		defer os.Remove(got.file)
	}
	if err != nil && !got.tooLarge {
		writeDetail(w, http.StatusBadRequest, msgNotMultipart)
		return
	}
	u, err := l.Store.FindPendingUploadByToken(r.Context(), graph.HashUploadToken(got.fields["token"]))
	switch {
	case got.fields["token"] == "" || errs.Is(err, errs.NotFound) || (err == nil && u.StorageKey != got.fields["key"]):
		writeDetail(w, http.StatusForbidden, msgBadToken)
		return
	case err != nil:
		writeDetail(w, http.StatusInternalServerError, errs.MsgServerError)
		return
	}
	if ct, ok := got.fields["Content-Type"]; ok && ct != "application/zip" {
		writeDetail(w, http.StatusBadRequest, msgContentType)
		return
	}
	switch {
	case got.file == "" && !got.tooLarge:
		writeDetail(w, http.StatusBadRequest, msgNoFile)
	case got.tooLarge:
		writeDetail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(msgTooLarge, l.MaxSize))
	case got.size == 0:
		writeDetail(w, http.StatusBadRequest, msgEmptyFile)
	default:
		if err := l.keep(got.file, u.StorageKey); err != nil {
			writeDetail(w, http.StatusInternalServerError, errs.MsgServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// receive reads the form's parts in order: text fields, and the file part
// copied to a temporary file under Dir up to MaxSize+1 bytes. Reading stops
// at an oversized file (tooLarge).
func (l *Local) receive(r *http.Request) (received, error) {
	got := received{fields: map[string]string{}}
	mr, err := r.MultipartReader()
	if err != nil {
		return got, err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		name := part.FormName()
		if name != "file" {
			b, err := io.ReadAll(io.LimitReader(part, 64<<10))
			if err != nil {
				return got, err
			}
			if _, seen := got.fields[name]; !seen {
				got.fields[name] = string(b)
			}
			continue
		}
		if got.file != "" {
			os.Remove(got.file)
		}
		if got.file, got.size, err = l.spool(part); err != nil {
			return got, err
		}
		if got.size > l.MaxSize {
			got.tooLarge = true
			return got, nil
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

func writeDetail(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"detail": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
