package hosting

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
)

// variant is a representation of a published file made by the host: the
// page with the reader client injected, gzip-compressed or not.
type variant struct {
	body []byte
	etag string
	gzip bool

	hETag, hLength []string // header values of its answers
}

func newVariant(body []byte, etag string, gzip bool) *variant {
	return &variant{body: body, etag: etag, gzip: gzip, hETag: []string{etag}, hLength: []string{strconv.Itoa(len(body))}}
}

// variants keeps the representations the host makes of published files, so
// that each is made once per file of a tree (as nginx's gzip_static serves
// files compressed ahead of time) rather than on every request.
// A published tree never changes: a publish makes a new tree with a new
// ID, which is part of every key, so an entry is never stale; entries of
// replaced trees are dropped when the cache is full.
type variants struct {
	mu      sync.Mutex // guards size and entries
	size    int
	entries map[string]*variant
}

// maxVariantBytes bounds the memory the variants of all files take.
const maxVariantBytes = 64 << 20

// variantKey names the representation of file name, whose own entity tag
// is etag, with block injected and compressed when gz.
func variantKey(name, etag string, block []byte, gz bool) string {
	var b strings.Builder
	b.Grow(len(name) + len(etag) + len(block) + 4)
	b.WriteString(name)
	b.WriteByte(0)
	b.WriteString(etag)
	b.WriteByte(0)
	b.Write(block)
	if gz {
		b.WriteString("\x00gzip")
	}
	return b.String()
}

func (c *variants) get(key string) (*variant, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.entries[key]
	return v, ok
}

// put keeps v under key; when that would exceed maxVariantBytes, the cache
// starts over.
func (c *variants) put(key string, v *variant) {
	n := len(key) + len(v.body)
	if n > maxVariantBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || c.size+n > maxVariantBytes {
		c.entries, c.size = map[string]*variant{}, 0
	}
	if _, ok := c.entries[key]; !ok {
		c.entries[key] = v
		c.size += n
	}
}

// makeVariant reads the file f of size bytes, whose own entity tag is etag,
// and makes its representation: block injected when not nil (the tag gets
// the suffix `-a<8 hex>`), then compressed when gz and the result is
// within the compression bounds (the tag gets `-gzip`).
func makeVariant(f io.Reader, size int64, etag string, block []byte, gz bool) (*variant, error) {
	body := make([]byte, size, int(size)+len(block))
	if _, err := io.ReadFull(f, body); err != nil {
		return nil, err
	}
	if block != nil {
		var suffix string
		if body, suffix = inject(body, block); suffix != "" {
			etag = withTagSuffix(etag, suffix)
		}
	}
	if !gz || len(body) < minGzipSize || len(body) > maxGzipSize {
		return newVariant(body, etag, false), nil
	}
	z, err := gzipAll(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return newVariant(z, withTagSuffix(etag, "-gzip"), true), nil
}
