//go:build !linux || nofront

package hosting

import (
	"context"
	"net"
	"net/http"
)

// FrontAvailable reports whether the Front has its fast path in this
// build: not on this system, or built with the nofront tag.
const FrontAvailable = false

// frontState is empty: without the Linux Front (front_linux.go) the Front
// is its Server alone, and the Handler keeps no file open for it.
type frontState struct{}

// Serve serves l with the Server (http.Server.Serve).
func (f *Front) Serve(l net.Listener) error { return f.Server.Serve(l) }

// Shutdown shuts the Server down (http.Server.Shutdown).
func (f *Front) Shutdown(ctx context.Context) error { return f.Server.Shutdown(ctx) }

// Close closes the Server (http.Server.Close).
func (f *Front) Close() error { return f.Server.Close() }

// writeBody writes body, the whole answer's body after its header.
func writeBody(w http.ResponseWriter, _ *http.Request, body []byte) {
	w.Write(body)
}
