package main

import (
	"fmt"
	"strings"
	"testing"

	"docsd/internal/hosting"
)

// TestServeDocsFront: --docs-front chooses whether the docs listener is
// served by the Front (where this build has it) or by net/http alone, and
// either way a kept-alive connection on the docs listener is closed after
// --idle-timeout, as on the main listener (TestServeConnectionLimits).
func TestServeDocsFront(t *testing.T) {
	for _, front := range []bool{true, false} {
		t.Run(fmt.Sprintf("DocsFront=%t", front), func(t *testing.T) {
			var srv *e2eServer
			// Registered first, so run after serve has returned: the log
			// is read once nothing writes to it.
			t.Cleanup(func() {
				if srv == nil {
					return
				}
				want := fmt.Sprintf(`"front":%t`, front && hosting.FrontAvailable)
				if !strings.Contains(srv.stderr.String(), want) {
					t.Errorf("the docs listener's log line lacks %s:\n%s", want, srv.stderr.String())
				}
			})
			srv = startServe(t, t.TempDir(), "--build-workers", "0", "--idle-timeout", "1", fmt.Sprintf("--docs-front=%t", front))
			idleConnectionClosed(t, srv.docs)
		})
	}
}
