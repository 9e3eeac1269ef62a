package artifacts

import (
	"slices"
	"testing"

	"docsd/internal/errs"
)

// TestBlobs is the Blobs contract of both backends: put, get, stat of a
// blob and of a prefix, lists shallow and deep, delete of a blob and of a
// prefix, NotFound for what is not there, refused keys.
func TestBlobs(t *testing.T) {
	backends(t, func(t *testing.T, b Backend) {
		ctx := t.Context()
		for k, v := range map[string]string{"c/acme/a.example/a.crt": "A", "c/acme/b.example/b.crt": "B", "c/acct.json": "{}"} {
			if err := b.PutBlob(ctx, k, []byte(v)); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.PutBlob(ctx, "c/acme/a.example/a.crt", []byte("A2")); err != nil {
			t.Fatal(err)
		}
		if got, err := b.GetBlob(ctx, "c/acme/a.example/a.crt"); err != nil || string(got) != "A2" {
			t.Errorf("GetBlob = %q, %v; want the replaced data", got, err)
		}
		if _, err := b.GetBlob(ctx, "c/none"); !errs.Is(err, errs.NotFound) {
			t.Errorf("GetBlob of a missing key: %v, want NotFound", err)
		}
		if info, err := b.StatBlob(ctx, "c/acct.json"); err != nil || info.Dir || info.Size != 2 {
			t.Errorf("StatBlob of a blob = %+v, %v", info, err)
		}
		if info, err := b.StatBlob(ctx, "c/acme"); err != nil || !info.Dir {
			t.Errorf("StatBlob of a prefix = %+v, %v", info, err)
		}
		shallow, err := b.ListBlobs(ctx, "c", false)
		slices.Sort(shallow)
		if err != nil || !slices.Equal(shallow, []string{"c/acct.json", "c/acme"}) {
			t.Errorf("ListBlobs shallow = %v, %v", shallow, err)
		}
		deep, err := b.ListBlobs(ctx, "c/acme", true)
		slices.Sort(deep)
		if err != nil || !slices.Equal(deep, []string{"c/acme/a.example/a.crt", "c/acme/b.example/b.crt"}) {
			t.Errorf("ListBlobs deep = %v, %v", deep, err)
		}
		if err := b.DeleteBlob(ctx, "c/acme"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.StatBlob(ctx, "c/acme/b.example/b.crt"); !errs.Is(err, errs.NotFound) {
			t.Errorf("after deleting the prefix: %v, want NotFound", err)
		}
		if _, err := b.GetBlob(ctx, "c/acct.json"); err != nil {
			t.Errorf("a blob beside the deleted prefix: %v", err)
		}
		for _, bad := range []string{"../x", "/abs", "", "."} {
			if err := b.PutBlob(ctx, bad, nil); !errs.Is(err, errs.Invalid) {
				t.Errorf("PutBlob(%q): %v, want Invalid", bad, err)
			}
		}
	})
}
