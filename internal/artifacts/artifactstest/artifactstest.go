// Package artifactstest helps tests make what builds produce.
package artifactstest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir writes files (slash-separated name → content) into a new temporary
// directory, removed when the test ends, and returns the directory.
func Dir(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}
