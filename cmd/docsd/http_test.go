package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawConn dials addr (host:port, or an http:// URL) for a test that speaks
// HTTP itself; every read and write must end within a generous deadline,
// only there to end a hung run.
func rawConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(addr, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	return c
}

// closedByServer reports whether the server closed c within the
// connection's deadline: reads end in io.EOF or a reset, not a timeout.
// Whatever the server answered before is read and ignored.
func closedByServer(c net.Conn) (bool, error) {
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false, err
	}
	return true, err
}

// TestServeConnectionLimits: the HTTP connection settings on the main
// listener. A kept-alive connection is closed after --idle-timeout; a body
// trickled so that each byte comes well within --body-timeout but below
// --body-min-rate is cut, while a body that takes longer than
// --body-timeout at a steady, sufficient rate is read whole (a whole-
// request ReadTimeout would cut it); a header over --max-header-bytes is
// answered 431.
func TestServeConnectionLimits(t *testing.T) {
	srv := startServe(t, t.TempDir(), "--build-workers", "0", "--idle-timeout", "1",
		"--body-timeout", "2", "--body-min-rate", "1000", "--max-header-bytes", "4096")

	t.Run("IdleConnectionClosed", func(t *testing.T) { idleConnectionClosed(t, srv.url) })

	// /graphql reads the body; /healthz does not, and net/http then reads
	// up to 256 KiB of it itself.
	for _, path := range []string{"/graphql", "/healthz"} {
		t.Run("TrickledBodyCut"+path, func(t *testing.T) {
			c := rawConn(t, srv.url)
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", path)
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				tick := time.NewTicker(300 * time.Millisecond) // each byte well within --body-timeout
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			if closed, err := closedByServer(c); !closed {
				t.Errorf("a body trickled below --body-min-rate was not cut: %v", err)
			}
		})
	}

	t.Run("SteadyBodyRead", func(t *testing.T) {
		query := `{"query": "{ __typename }"` + strings.Repeat(" ", 64<<10) + `}`
		c := rawConn(t, srv.url)
		fmt.Fprintf(c, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(query))
		go func() {
			// 64 KiB at 20 KiB/s: longer than --body-timeout, far above --body-min-rate.
			for b := []byte(query); len(b) > 0; {
				n := min(len(b), 1<<10)
				if _, err := c.Write(b[:n]); err != nil {
					return
				}
				b = b[n:]
				time.Sleep(50 * time.Millisecond)
			}
		}()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("a steady body was cut: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"__typename":"Query"`) {
			t.Errorf("steady body: %d %s", resp.StatusCode, body)
		}
	})

	t.Run("HeaderTooLarge", func(t *testing.T) {
		c := rawConn(t, srv.url)
		// net/http allows 4096 bytes over MaxHeaderBytes.
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 16<<10))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("a header over --max-header-bytes: %d, want 431", resp.StatusCode)
		}
	})
}

// TestServeAnswersUnreadBodies: a handler that refuses a request before
// reading its body (not a maintainer, not found) still gets its answer to
// a client that sends the whole body before it reads (as Python's clients
// do): the body, within the limit, is read first. A body over the limit
// is answered 413 at once, by Content-Length, and the connection closed.
func TestServeAnswersUnreadBodies(t *testing.T) {
	dataDir := t.TempDir()
	alice := createUser(t, dataDir, "alice")
	bob := createUser(t, dataDir, "bob")
	srv := startServe(t, dataDir, "--build-workers", "0", "--graphql-max-bytes", "4194304")
	srv.token = alice
	srv.importProject(t, "demo", gitRepo(t, repoFiles("Demo")), "en")

	// A 2 MB JSON body: under REST's 2.5 MiB.
	big := `{"name": "` + strings.Repeat("x", 2_000_000) + `"}`
	// sendThenRead writes the whole request, then reads the answer. The
	// client's send buffer is small, as the bytes in flight on a real
	// network are: on loopback the kernel would otherwise take the whole
	// body at once, and the answer would be read before the reset.
	sendThenRead := func(t *testing.T, method, path, token, ctype, body string) (int, string) {
		t.Helper()
		c := rawConn(t, srv.url)
		if err := c.(*net.TCPConn).SetWriteBuffer(64 << 10); err != nil {
			t.Fatal(err)
		}
		var req bytes.Buffer
		fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: x\r\nAuthorization: Token %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
			method, path, token, ctype, len(body), body)
		if _, err := c.Write(req.Bytes()); err != nil {
			t.Fatalf("%s %s: sending the body: %v", method, path, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s %s: reading the answer: %v", method, path, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: reading the answer: %v", method, path, err)
		}
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct {
		method, path, token string
		status              int
		detail              string
	}{
		{"PATCH", "/api/v3/projects/demo/versions/latest/", bob, 403, "You do not have permission to perform this action."},
		{"POST", "/api/v3/projects/demo/environmentvariables/", bob, 403, "You do not have permission to perform this action."},
		{"POST", "/api/v3/projects/demo/subprojects/", bob, 403, "You do not have permission to perform this action."},
		{"PUT", "/api/v3/projects/demo/redirects/999/", bob, 403, "You do not have permission to perform this action."},
		{"PUT", "/api/v3/projects/demo/redirects/999/", alice, 404, "Not found."},
		{"POST", "/graphql", "not-a-token", 401, ""},
	} {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			status, body := sendThenRead(t, tc.method, tc.path, tc.token, "application/json", big)
			if status != tc.status || !strings.Contains(body, tc.detail) {
				t.Errorf("got %d %s, want %d %q", status, body, tc.status, tc.detail)
			}
			var v any
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Errorf("not JSON: %v", err)
			}
		})
	}

	// The storage POST answers a wrong token sent before the file at once,
	// and then reads the file (within its limit) without writing it.
	t.Run("UploadStorageWrongToken", func(t *testing.T) {
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		mw.WriteField("key", "1/1/artifacts.zip")
		mw.WriteField("token", "not-a-token")
		fw, _ := mw.CreateFormFile("file", "artifacts.zip")
		fw.Write(bytes.Repeat([]byte("z"), 8<<20))
		mw.Close()
		status, body := sendThenRead(t, "POST", "/api/v3/upload/artifacts/", "", mw.FormDataContentType(), form.String())
		if status != 403 || body != `{"detail":"Invalid or expired upload token."}` {
			t.Errorf("got %d %s, want 403", status, body)
		}
	})

	for _, tc := range []struct{ method, path, token, want string }{
		{"PATCH", "/api/v3/projects/demo/versions/latest/", bob, `{"detail":"Request body is too large."}`},
		{"POST", "/graphql", "not-a-token", `"code":"QUERY_TOO_COMPLEX"`},
	} {
		t.Run("OverTheLimit"+tc.path, func(t *testing.T) {
			c := rawConn(t, srv.url)
			// Only the header and a little of the body are sent.
			fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\nAuthorization: Token %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"name\": \"",
				tc.method, tc.path, tc.token, 8<<20)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 413 || !resp.Close || !strings.Contains(string(body), tc.want) {
				t.Errorf("got %d (close %v) %s, want 413 %s and the connection closed", resp.StatusCode, resp.Close, body, tc.want)
			}
			if closed, err := closedByServer(c); !closed {
				t.Errorf("the connection stayed open: %v", err)
			}
		})
	}
}

// TestHTTPSettings: the connection settings are described, read from
// flags and the environment, checked, and given to every http.Server.
func TestHTTPSettings(t *testing.T) {
	_, help, _ := docsd(t, "serve", "--help")
	for _, name := range []string{"-idle-timeout", "DOCSD_IDLE_TIMEOUT", "-body-timeout", "DOCSD_BODY_TIMEOUT", "-body-min-rate",
		"DOCSD_BODY_MIN_RATE", "-max-header-bytes", "DOCSD_MAX_HEADER_BYTES", "-upload-max-spools", "DOCSD_UPLOAD_MAX_SPOOLS"} {
		if !strings.Contains(help, name) {
			t.Errorf("serve --help does not describe %s", name)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--idle-timeout", "-1"}, "--idle-timeout"},
		{[]string{"--body-timeout", "-1"}, "--body-timeout"},
		{[]string{"--body-min-rate", "-5"}, "--body-min-rate"},
		{[]string{"--max-header-bytes", "-1"}, "--max-header-bytes"},
		{[]string{"--upload-max-spools", "-1"}, "--upload-max-spools"},
	} {
		c := &command{stdout: io.Discard, stderr: io.Discard}
		fs, env := c.flags("serve", "serve")
		_, err := c.parse(fs, env, append([]string{"--data-dir", t.TempDir()}, tc.args...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
	t.Setenv("DOCSD_IDLE_TIMEOUT", "30")
	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, []string{"--data-dir", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	s := c.settings
	if s.IdleTimeout != 30 || s.BodyTimeout != defaultBodyTimeout || s.BodyMinRate != defaultBodyMinRate ||
		s.MaxHeaderBytes != defaultMaxHeaderBytes || s.UploadMaxSpools != defaultUploadMaxSpools {
		t.Errorf("settings: %+v", s)
	}
	a := &app{settings: s}
	hs := a.httpServer(http.NotFoundHandler())
	if hs.IdleTimeout != 30*time.Second || hs.MaxHeaderBytes != defaultMaxHeaderBytes || hs.ReadHeaderTimeout == 0 || hs.ReadTimeout != 0 {
		t.Errorf("http.Server: idle %v, max header %d, read header %v, read %v", hs.IdleTimeout, hs.MaxHeaderBytes, hs.ReadHeaderTimeout, hs.ReadTimeout)
	}
}

// idleConnectionClosed asks the server at base for /healthz on a raw
// connection kept alive, then fails unless the server closes it once idle
// (within a generous deadline, for a busy machine).
func idleConnectionClosed(t *testing.T, base string) {
	t.Helper()
	c := rawConn(t, base)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("GET /healthz: %d, close %v; want 200 kept alive", resp.StatusCode, resp.Close)
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if closed, err := closedByServer(c); !closed {
		t.Errorf("an idle kept-alive connection to %s stayed open past --idle-timeout: %v", base, err)
	}
}
