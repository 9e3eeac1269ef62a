package builder

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRecordedOutput(t *testing.T) {
	if got := decodeOutput([]byte("a\x00b\xffc")); got != "ab\uFFFDc" {
		t.Errorf("decodeOutput = %q, want NULs removed and invalid UTF-8 replaced", got)
	}
	long := strings.Repeat("é", MaxOutput+10)
	got := recordedOutput(long, false, nil)
	if !strings.HasSuffix(got, TruncationNotice) || utf8.RuneCountInString(strings.TrimSuffix(got, TruncationNotice)) != MaxOutput {
		t.Errorf("long output: %d characters, want %d plus the notice", utf8.RuneCountInString(got), MaxOutput)
	}
	if got := recordedOutput("short", true, nil); got != "short"+TruncationNotice {
		t.Errorf("output cut while capturing: %q", got)
	}

	// A secret across the limit is masked whole before the cut.
	const secret = "s3cr3t-value"
	m := newMasker([]string{secret})
	out := strings.Repeat("x", MaxOutput-5) + secret + "tail"
	got = recordedOutput(out, false, m)
	if want := strings.Repeat("x", MaxOutput-5) + "***ta" + TruncationNotice; got != want {
		t.Errorf("secret across the limit: got …%q, want …%q", tail(got, 60), tail(want, 60))
	}
	if got := recordedOutput("x"+secret, false, m); got != "x***" {
		t.Errorf("short output: %q", got)
	}
	// Output cut while capturing may end inside a secret: its start is
	// not recorded either.
	if got := recordedOutput("all good so far: "+secret[:6], true, m); strings.Contains(got, secret[:6]) || !strings.HasPrefix(got, "all good") {
		t.Errorf("secret cut while capturing: %q", got)
	}
}

func TestMasker(t *testing.T) {
	m := newMasker([]string{"abc", "secret", "secret-longer", ""})
	for in, want := range map[string]string{
		"token=secret-longer;": "token=***;",
		"secret and abc":       "*** and abc",
		"nothing":              "nothing",
	} {
		if got := m.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	if got := newMasker(nil).Mask("x"); got != "x" {
		t.Errorf("empty masker changed %q", got)
	}
}

func TestRunProcessKillsItsGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	// The shell's background child keeps the output pipe open: only killing
	// the whole group ends the command.
	res, err := runProcess(ctx, "/bin/sh", []string{"sh", "-c", "echo started; sleep 30 & sleep 30"}, t.TempDir(), []string{"PATH=" + systemPath})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	if !res.Killed || res.ExitCode != -9 || res.Output != "started\n" {
		t.Errorf("result %+v, want killed with -9 and the partial output", res)
	}
	res, err = runProcess(context.Background(), "/bin/sh", []string{"sh", "-c", "echo out; echo err >&2; exit 4"}, t.TempDir(), nil)
	if err != nil || res.ExitCode != 4 || res.Killed || !strings.Contains(res.Output, "out\n") || !strings.Contains(res.Output, "err\n") {
		t.Errorf("result %+v, %v; want exit 4 with both streams", res, err)
	}
}
