package hosting

import (
	"net/http"
	"time"
)

// Front serves the docs listener. On Linux it reads each connection's
// requests itself and answers those whose whole answer the Handler keeps
// from memory or with sendfile(2), and gives the Server the rest
// (front_linux.go): net/http's per-request cost (a request object, header
// maps, a background read and deadlines per request) is what kept docs at
// two thirds of nginx's rate. On other systems, and in a build with the
// nofront tag, it is the Server alone (front_other.go). docsd serve's
// --docs-front=false serves the docs listener with the Server alone on any
// system.
type Front struct {
	// Handler keeps the answers the Front replays.
	Handler *Handler
	// Server serves the requests the Front lends or hands over, which it
	// routes to the Handler among others; its timeouts and header limit
	// hold for the Front's connections too.
	Server *http.Server
	// Reserved reports the request paths the Server's handler answers
	// before the Handler (health probes): the Front leaves them to it even
	// if an answer is kept for the same Host and path.
	Reserved func(path string) bool
	// Log, when set, is called after each answer the Front wrote; the
	// FrontRequest and its strings are valid only during the call.
	Log func(*FrontRequest)

	frontState
}

// FrontRequest describes an answered request for the access log.
type FrontRequest struct {
	Method, Host, Path string
	// Remote is the connection's peer (http.Request.RemoteAddr);
	// ForwardedFor the X-Forwarded-For header's value, if any.
	Remote, ForwardedFor string
	Status, Bytes        int
	Start                time.Time
	Duration             time.Duration
}
