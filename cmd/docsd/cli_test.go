package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestHelp: every group's help works, help goes to stdout, placeholders
// are words (never a stray word from a flag's text), admin commands show
// only their flags, and secrets from the environment never show.
func TestHelp(t *testing.T) {
	t.Setenv("DOCSD_SECRET_KEY", "do-not-print-this-key")
	for _, group := range []string{"user", "token", "project", "version", "redirect", "build", "secrets", "search"} {
		code, out, errOut := docsd(t, group, "--help")
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage: docsd "+group+" SUBCOMMAND") || !strings.Contains(out, "  docsd "+group+" ") {
			t.Errorf("docsd %s --help: code %d, stdout %q, stderr %q", group, code, out, errOut)
		}
	}
	code, out, errOut := docsd(t, "help", "user", "create")
	if code != 0 || errOut != "" || !strings.Contains(out, "Usage: docsd user create USERNAME") || !strings.Contains(out, "--email ADDRESS") {
		t.Errorf("docsd help user create: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, hidden := range []string{"--addr", "--build-workers", "--unlink"} {
		if strings.Contains(out, hidden) {
			t.Errorf("user create --help shows %s", hidden)
		}
	}
	code, out, errOut = docsd(t, "search", "reindex", "--help")
	if code != 0 || errOut != "" || !strings.Contains(out, "Usage: docsd search reindex [PROJECT[/VERSION]]") || !strings.Contains(out, "--artifacts-url URL") || strings.Contains(out, "--addr") {
		t.Errorf("docsd search reindex --help: code %d, stdout %q, stderr %q; want its usage and only the flags it uses", code, out, errOut)
	}
	if code, _, errOut := docsd(t, "search", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "search frobnicate"`) {
		t.Errorf("unknown search subcommand: code %d, stderr %q", code, errOut)
	}
	code, out, _ = docsd(t, "serve", "--help")
	placeholder := regexp.MustCompile(`(?m)^  --[a-z0-9-]+( [A-Z_]+)?$`)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  --") && !placeholder.MatchString(line) {
			t.Errorf("serve --help flag line %q: want `--name` or `--name PLACEHOLDER`", line)
		}
	}
	if code != 0 || !strings.Contains(out, "--build-workers N\n") || !strings.Contains(out, "--max-page-size N\n") {
		t.Errorf("serve --help: code %d, placeholders wrong:\n%s", code, out)
	}
	if strings.Contains(out, "do-not-print-this-key") || !strings.Contains(out, "currently set from the environment") {
		t.Error("serve --help prints the secret key or does not say it is set")
	}
	if code, out, errOut := docsd(t, "token", "create", "alice", "--email", "x@example.com"); code != 2 || out != "" || !strings.Contains(errOut, "docsd: unknown flag --email") {
		t.Errorf("token create --email: code %d, stdout %q, stderr %q; want a usage error", code, out, errOut)
	}
	if code, _, errOut := docsd(t, "user", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "user frobnicate"`) {
		t.Errorf("unknown subcommand: code %d, stderr %q", code, errOut)
	}
}

func TestListCommandsAndBuildLog(t *testing.T) {
	dir := t.TempDir()
	migrated(t, dir)
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(dir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := storetest.MustUser(t, s, "alice")
	imp := storetest.MustImport(t, s, u, "Demo Docs", "https://github.com/a/b")
	exit := 1
	start := time.Now()
	if _, err := s.AddBuildCommand(ctx, store.BuildCommand{BuildID: imp.Build.ID, Command: "git clone --depth 50 https://github.com/a/b .",
		Output: "fatal: repository not found", ExitCode: &exit, StartTime: start, EndTime: &start}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishBuild(ctx, imp.Build.ID, store.BuildResult{Error: "There was a problem cloning.", ErrorID: "build:clone"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data := "--data-dir=" + dir
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"user", "list"}, []string{"USERNAME", "alice"}},
		{[]string{"project", "list"}, []string{"SLUG", "demo-docs", "Demo Docs", "public", "https://github.com/a/b"}},
		{[]string{"build", "list", "demo-docs"}, []string{"ID", "latest", "finished", "failure", "There was a problem cloning."}},
		{[]string{"build", "log", "1"}, []string{"Build 1: finished, failure", "$ git clone --depth 50", "(exit 1)", "fatal: repository not found"}},
	} {
		code, out, errOut := docsd(t, append(tc.args, data)...)
		if code != 0 {
			t.Errorf("docsd %v: code %d, stderr %q", tc.args, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("docsd %v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	if code, _, errOut := docsd(t, "build", "list", "nope", data); code != 1 || !strings.Contains(errOut, `project "nope" does not exist`) {
		t.Errorf("build list of a missing project: code %d, stderr %q", code, errOut)
	}
	if code, _, errOut := docsd(t, "build", "log", "99", data); code != 1 || !strings.Contains(errOut, "build 99 does not exist") {
		t.Errorf("build log of a missing build: code %d, stderr %q", code, errOut)
	}
}

// TestMistypedFlag: a flag the command does not have gets the command's
// usage and, when a flag of the command is close to it, that flag's name,
// all on stderr with exit status 2; wherever it stands on the line.
func TestMistypedFlag(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		usage, want string
	}{
		{[]string{"serve", "--docs-adr", "127.0.0.1:9"}, "Usage: docsd serve", "docsd: unknown flag --docs-adr; did you mean --docs-addr?\n"},
		{[]string{"serve", "-docs-adr=127.0.0.1:9"}, "Usage: docsd serve", "docsd: unknown flag --docs-adr; did you mean --docs-addr?\n"},
		{[]string{"serve", "--addr", "127.0.0.1:9", "--build-worker", "3"}, "Usage: docsd serve", "did you mean --build-workers?\n"},
		{[]string{"token", "create", "alice", "--nmae", "CI"}, "Usage: docsd token create", "docsd: unknown flag --nmae; did you mean --name?\n"},
		{[]string{"user", "create", "alice", "--superuesr"}, "Usage: docsd user create", "did you mean --superuser?\n"},
		{[]string{"worker", "--frobnicate"}, "Usage: docsd worker", "docsd: unknown flag --frobnicate\n"},
	} {
		code, out, errOut := docsd(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.usage) || !strings.HasSuffix(errOut, tc.want) {
			t.Errorf("docsd %s: code %d, stdout %q, stderr %q; want 2 with the usage (%q) on stderr ending %q",
				strings.Join(tc.args, " "), code, out, errOut, tc.usage, tc.want)
		}
	}
}
