package artifacts

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/errs"
)

// writeTree makes a directory with the given files (name → content).
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	return artifactstest.Dir(t, files)
}

func mustLocal(t *testing.T) *Local {
	t.Helper()
	l, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func readTree(t *testing.T, tree Tree, name string) string {
	t.Helper()
	b, err := fs.ReadFile(tree, name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

func TestOpenHTMLReadsTheTreeItResolved(t *testing.T) {
	ctx := t.Context()
	l := mustLocal(t)
	if _, err := l.OpenHTML(ctx, "demo", "latest"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("before publish: got %v, want NotFound", err)
	}
	if err := l.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "one", "a/b.html": "one-b"})); err != nil {
		t.Fatal(err)
	}
	first, err := l.OpenHTML(ctx, "demo", "latest")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if err := l.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "two"})); err != nil {
		t.Fatal(err)
	}
	second, err := l.OpenHTML(ctx, "demo", "latest")
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if got, want := readTree(t, first, "a/b.html"), "one-b"; got != want {
		t.Errorf("old tree after a publish: got %q, want %q", got, want)
	}
	if got, want := readTree(t, second, "index.html"), "two"; got != want {
		t.Errorf("new tree: got %q, want %q", got, want)
	}
	if first.ID() == second.ID() {
		t.Errorf("two publishes share the tree id %q", first.ID())
	}
}

func TestOpenHTMLStaysInsideTheTree(t *testing.T) {
	ctx := t.Context()
	l := mustLocal(t)
	secret := filepath.Join(l.Root, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "x"})); err != nil {
		t.Fatal(err)
	}
	dir, err := l.HTMLDir("demo", "latest")
	if err != nil {
		t.Fatal(err)
	}
	// Symlinks are never published, but a tree on disk might still get one.
	if err := os.Symlink(secret, filepath.Join(dir, "abs.html")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../secret.txt", filepath.Join(dir, "rel.html")); err != nil {
		t.Fatal(err)
	}
	tree, err := l.OpenHTML(ctx, "demo", "latest")
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	for _, name := range []string{"abs.html", "rel.html", "../../../secret.txt", "./index.html", "a/../index.html", `..\secret.txt`, "/index.html", "index.html\x00"} {
		if b, err := fs.ReadFile(tree, name); err == nil {
			t.Errorf("read %q: got %q, want an error", name, b)
		}
	}
}

func TestPublishRetiresTheOldTreeAfterTheGracePeriod(t *testing.T) {
	ctx := t.Context()
	l := mustLocal(t)
	l.RetireAfter = 50 * time.Millisecond
	projectDir := filepath.Join(l.Root, "html", "demo")
	trees := func(version string) []string {
		entries, _ := os.ReadDir(projectDir)
		var names []string
		for _, e := range entries {
			if isTreeOf(e.Name(), version) {
				names = append(names, e.Name())
			}
		}
		return names
	}
	for _, v := range []string{"1", "1.0"} {
		if err := l.PublishHTML(ctx, "demo", v, writeTree(t, map[string]string{"index.html": v})); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.PublishHTML(ctx, "demo", "1", writeTree(t, map[string]string{"index.html": "1 again"})); err != nil {
		t.Fatal(err)
	}
	if got := len(trees("1")); got != 2 {
		t.Fatalf("right after a publish: got %d trees of 1, want 2 (old one retired, not removed)", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(trees("1")) != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := len(trees("1")); got != 1 {
		t.Fatalf("after the grace period: got %d trees of 1, want 1", got)
	}
	if got := len(trees("1.0")); got != 1 {
		t.Errorf("publishing 1 touched 1.0: got %d trees, want 1", got)
	}
	if err := l.RemoveVersion(ctx, "demo", "1"); err != nil {
		t.Fatal(err)
	}
	if got := len(trees("1")); got != 0 {
		t.Errorf("after RemoveVersion: got %d trees of 1, want 0", got)
	}
	tree, err := l.OpenHTML(ctx, "demo", "1.0")
	if err != nil {
		t.Fatalf("1.0 after removing 1: %v", err)
	}
	defer tree.Close()
	if got, want := readTree(t, tree, "index.html"), "1.0"; got != want {
		t.Errorf("1.0: got %q, want %q", got, want)
	}
}
