package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/store"
)

// TestAuditPruneCommand: `docsd audit prune` deletes the entries older
// than --audit-retention-days and keeps the others; 0 keeps everything.
func TestAuditPruneCommand(t *testing.T) {
	dir := t.TempDir()
	data := "--data-dir=" + dir
	migrated(t, dir)
	s, err := store.Open(context.Background(), filepath.Join(dir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for _, age := range []time.Duration{100 * 24 * time.Hour, 10 * 24 * time.Hour} {
		s.Now = func() time.Time { return now.Add(-age) }
		if err := s.CreateAuditEntry(context.Background(), &store.AuditEntry{Action: store.AuditLogOut}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if code, out, errOut := docsd(t, "audit", "prune", "--audit-retention-days", "0", data); code != 0 || !strings.Contains(out, "none deleted") {
		t.Errorf("retention 0: code %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := docsd(t, "audit", "prune", data); code != 0 || out != "1 audit entries older than 90 days deleted\n" {
		t.Errorf("prune: code %d, %q %q", code, out, errOut)
	}
	if code, out, _ := docsd(t, "audit", "prune", "--audit-retention-days", "5", data); code != 0 || !strings.HasPrefix(out, "1 ") {
		t.Errorf("prune at 5 days: code %d, %q", code, out)
	}
	if code, _, errOut := docsd(t, "audit", "prune", "--audit-retention-days", "-1", data); code == 0 || !strings.Contains(errOut, "--audit-retention-days") {
		t.Errorf("negative retention: code %d, %q", code, errOut)
	}
}
