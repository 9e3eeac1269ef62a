package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeWarnsOfHostBuildNetwork: `docsd serve --build-network host`
// says in a WARNING line, on every start, that builds use this machine's
// network.
func TestServeWarnsOfHostBuildNetwork(t *testing.T) {
	dataDir := t.TempDir()
	migrated(t, dataDir)
	for start := 1; start <= 2; start++ {
		var log bytes.Buffer
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(t.Context())
		exited := make(chan int, 1)
		go func() {
			exited <- run(ctx, []string{"serve", "--data-dir", dataDir, "--addr", addr, "--docs-addr", freeAddr(t),
				"--build-workers", "1", "--build-network", "host"}, io.Discard, &syncWriter{w: &log})
		}()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			resp, err := http.Get("http://" + addr + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Now().After(deadline) {
				cancel()
				t.Fatalf("start %d: docsd serve did not answer: %v", start, err)
			}
		}
		cancel()
		if code := <-exited; code != 0 {
			t.Fatalf("start %d: docsd serve exited with %d:\n%s", start, code, log.String())
		}
		var warning string
		for _, line := range strings.Split(log.String(), "\n") {
			if strings.Contains(line, "WARNING: BUILDS USE THE HOST'S NETWORK") {
				warning = line
			}
		}
		if warning == "" || !strings.Contains(warning, "level=WARN") || !strings.Contains(warning, "loopback") {
			t.Errorf("start %d: no WARNING line about the host's network:\n%s", start, log.String())
		}
	}
}
