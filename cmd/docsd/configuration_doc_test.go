package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The configuration reference of the documentation site,
// docs/operations/configuration.md, is generated from the flag definitions
// (Settings.register), so it cannot drift from them: TestConfigurationReference
// fails when the committed page differs from what the flags give, and
// `-update` rewrites it.

var updateConfigurationDoc = flag.Bool("update-configuration-doc", false,
	"rewrite docs/operations/configuration.md from the flag definitions")

// configurationDoc is the page's path from this package's directory.
var configurationDoc = filepath.Join("..", "..", "docs", "operations", "configuration.md")

// regenerateConfigurationDoc is the one command that rewrites the page.
const regenerateConfigurationDoc = "go test ./cmd/docsd -run '^TestConfigurationReference$' -update-configuration-doc"

// machineDefaults describes the defaults that depend on the machine docsd
// starts on, which the page cannot show as one value.
var machineDefaults = map[string]string{
	"build-python": "`/usr/bin/python3` when it exists, else `python3` from `PATH`",
}

// settingGroups sorts the settings into the page's sections by the
// beginning of their flag names; a setting no group claims is a server
// setting.
var settingGroups = []struct {
	title, intro string
	prefixes     []string
}{
	{"Server", "Listeners, public URLs, the database, request budgets and logging.", nil},
	{"Builds", "How builds run: workers, the sandbox, resource limits, tools, where requirements are installed from, and which repositories may be imported.",
		[]string{"build-", "git-", "install-core-", "allow-", "package-", "offline-"}},
	{"Docs hosting and the reader", "The docs listener, its origin, its cache, and the reader client injected into pages.",
		[]string{"docs-", "addons-"}},
	{"GraphQL", "The public `/graphql` endpoint's limits and which browser origins may call it.",
		[]string{"graphql-", "cors-"}},
	{"Uploads", "Publishing prebuilt docs through the upload API, `/api/v3/upload/`.", []string{"upload-"}},
	{"Object storage", "Built docs, downloads and upload archives in an S3-compatible bucket instead of the data directory. " +
		"The credentials are the standard `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` variables.",
		[]string{"artifacts-", "s3-"}},
}

// settingGroup is the index in settingGroups of the group a flag is in.
func settingGroup(name string) int {
	for i, g := range settingGroups {
		for _, p := range g.prefixes {
			if strings.HasPrefix(name, p) {
				return i
			}
		}
	}
	return 0
}

// documentedSetting is one setting as the page shows it.
type documentedSetting struct {
	name, env, def, help string
}

// registeredSettings declares every setting on a new flag set, with the
// environment's DOCSD_* variables out of the way so that the defaults are
// docsd's own, and returns them sorted by name.
func registeredSettings(t *testing.T) []documentedSetting {
	t.Helper()
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "DOCSD_") {
			os.Unsetenv(name)
			t.Cleanup(func() { os.Setenv(name, value) })
		}
	}
	var s Settings
	fs := flag.NewFlagSet("docsd", flag.ContinueOnError)
	env := &envErrors{}
	s.register(fs, env)
	if len(*env) > 0 {
		t.Fatalf("environment: %v", *env)
	}
	var out []documentedSetting
	fs.VisitAll(func(f *flag.Flag) {
		def := "`" + f.DefValue + "`"
		switch {
		case machineDefaults[f.Name] != "":
			def = machineDefaults[f.Name]
		case f.DefValue == "":
			def = "empty"
		}
		out = append(out, documentedSetting{
			name: f.Name,
			env:  envName(f.Name),
			def:  def,
			help: strings.TrimSuffix(f.Usage, " ("+envName(f.Name)+")"),
		})
	})
	return out
}

// markdownSpecial matches what Markdown would read as markup in help text
// outside its code spans.
var markdownSpecial = regexp.MustCompile("[\\\\*_\\[\\]<>|]")

// helpMarkdown renders a flag's help text: its `code spans` kept, anything
// else that Markdown would read as markup escaped.
func helpMarkdown(help string) string {
	parts := strings.Split(help, "`")
	for i := 0; i < len(parts); i += 2 { // outside code spans
		parts[i] = markdownSpecial.ReplaceAllStringFunc(parts[i], func(c string) string {
			switch c {
			case "<":
				return "&lt;"
			case ">":
				return "&gt;"
			}
			return `\` + c
		})
	}
	return strings.Join(parts, "`")
}

// configurationPage renders docs/operations/configuration.md.
func configurationPage(settings []documentedSetting) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `# Configuration reference

<!-- Generated from the flag definitions (cmd/docsd/settings.go); do not edit.
     Regenerate with: %s -->

Every setting is a flag and an environment variable named alike
(`+"`--public-url`"+` and `+"`DOCSD_PUBLIC_URL`"+`). A flag wins over the
variable, the variable over the default. `+"`docsd serve --help`"+` lists them
all on the machine at hand. `+"`docsd worker`"+` takes the same settings; the
admin commands (`+"`docsd user …`"+`, `+"`docsd backup`"+`, …) use the data
directory, the database URL, the secret keys and the log format, and accept
the others. Rates are written `+"`N/second`"+`, `+"`N/minute`"+`, `+"`N/hour`"+` or
`+"`N/day`"+`.
`, regenerateConfigurationDoc)

	byGroup := make([][]documentedSetting, len(settingGroups))
	for _, s := range settings {
		g := settingGroup(s.name)
		byGroup[g] = append(byGroup[g], s)
	}
	b.WriteString("\n| Setting | Environment variable | Default |\n|---|---|---|\n")
	for _, group := range byGroup {
		for _, s := range group {
			fmt.Fprintf(&b, "| [`--%s`](#%s) | `%s` | %s |\n", s.name, s.name, s.env, s.def)
		}
	}
	for i, group := range byGroup {
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", settingGroups[i].title, settingGroups[i].intro)
		for _, s := range group {
			fmt.Fprintf(&b, "\n### `--%s` {#%s}\n\n`%s` · default %s\n\n%s\n", s.name, s.name, s.env, s.def, helpMarkdown(s.help))
		}
	}
	return b.Bytes()
}

// TestConfigurationReference fails when docs/operations/configuration.md
// is not what the flag definitions give; -update-configuration-doc
// rewrites it.
func TestConfigurationReference(t *testing.T) {
	settings := registeredSettings(t)
	for name := range machineDefaults {
		if !slices.ContainsFunc(settings, func(s documentedSetting) bool { return s.name == name }) {
			t.Errorf("machineDefaults names --%s, which is not a setting", name)
		}
	}
	for i, g := range settingGroups {
		if i > 0 && !slices.ContainsFunc(settings, func(s documentedSetting) bool { return settingGroup(s.name) == i }) {
			t.Errorf("no setting is in the group %q", g.title)
		}
		// A section's anchor must not be a setting's.
		anchor := strings.ToLower(strings.ReplaceAll(g.title, " ", "-"))
		if slices.ContainsFunc(settings, func(s documentedSetting) bool { return s.name == anchor }) {
			t.Errorf("the group %q has the anchor of the setting --%s", g.title, anchor)
		}
	}
	want := configurationPage(settings)
	if *updateConfigurationDoc {
		if err := os.WriteFile(configurationDoc, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(configurationDoc)
	if err != nil {
		t.Fatalf("%v\nGenerate the page with:\n\t%s", err, regenerateConfigurationDoc)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/operations/configuration.md differs from the flag definitions (first difference at line %d).\n"+
			"Regenerate it with:\n\t%s", firstDifferentLine(got, want), regenerateConfigurationDoc)
	}
}

// firstDifferentLine is the 1-based number of the first line where a and b
// differ.
func firstDifferentLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

func TestHelpMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"serve docs at <project>.<docs-domain>", `serve docs at &lt;project&gt;.&lt;docs-domain&gt;`},
		{"N/second|minute|hour|day; 0 disables", `N/second\|minute\|hour\|day; 0 disables`},
		{"write v3 _links as absolute URLs, or *", `write v3 \_links as absolute URLs, or \*`},
		{"largest `limit` of API lists", "largest `limit` of API lists"},
		{"leave builds to `docsd worker` [x]", "leave builds to `docsd worker` \\[x\\]"},
		{"keep `<a_b>` in code", "keep `<a_b>` in code"},
	} {
		if got := helpMarkdown(tc.in); got != tc.want {
			t.Errorf("helpMarkdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
