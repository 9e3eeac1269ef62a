package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Help goes to stdout (it is what was asked for); errors go to stderr.

// placeholders name the value of flags whose last word does not.
var placeholders = map[string]string{
	"build-python": "PATH", "build-pasta": "PATH", "build-sandbox": "MODE", "trusted-proxies": "LIST",
	"log-format": "FORMAT", "build-workers": "N", "email": "ADDRESS",
}

// hiddenDefaults are flags whose default (from the environment) may hold a
// secret: help says only whether they are set.
var hiddenDefaults = map[string]bool{"secret-key": true, "old-secret-key": true, "database-url": true}

// adminFlags are the settings the admin commands (and `secrets rotate`,
// `migrate`) use; their help shows only these and their own flags.
var adminFlags = []string{"data-dir", "database-url", "secret-key", "old-secret-key", "log-format"}

// placeholder is the name of a flag's value in help: none for booleans, N
// for integers, else the flag's last word in capitals.
func placeholder(f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	if p, ok := placeholders[f.Name]; ok {
		return p
	}
	if _, ok := f.Value.(flag.Getter).Get().(int); ok {
		return "N"
	}
	words := strings.Split(f.Name, "-")
	return strings.ToUpper(words[len(words)-1])
}

// printHelp writes a command's usage and the flags it shows.
func (c *command) printHelp(fs *flag.FlagSet) {
	w := c.stdout
	fmt.Fprintf(w, "Usage: docsd %s\n\nFlags:\n", c.synopsis)
	fs.VisitAll(func(f *flag.Flag) {
		if c.shown != nil && !slices.Contains(c.shown, f.Name) {
			return
		}
		fmt.Fprintf(w, "  --%s", f.Name)
		if p := placeholder(f); p != "" {
			fmt.Fprintf(w, " %s", p)
		}
		fmt.Fprintf(w, "\n        %s", f.Usage)
		switch def := f.DefValue; {
		case hiddenDefaults[f.Name] && def != "":
			fmt.Fprint(w, " (currently set from the environment)")
		case def != "" && def != "false" && !hiddenDefaults[f.Name]:
			fmt.Fprintf(w, " (default %q)", def)
		}
		fmt.Fprintln(w)
	})
	if c.shown != nil {
		fmt.Fprintln(w, "\nThe other settings (docsd serve --help) are accepted and ignored.")
	}
}

// groupHelp writes the subcommands of a command group (`docsd user --help`).
func groupHelp(w io.Writer, group string) {
	fmt.Fprintf(w, "Usage: docsd %s SUBCOMMAND [flags] [arguments]\n\nSubcommands:\n", group)
	var lines []string
	for key, synopsis := range allSynopses() {
		if strings.HasPrefix(key, group+" ") {
			lines = append(lines, "  docsd "+synopsis)
		}
	}
	slices.Sort(lines)
	fmt.Fprintln(w, strings.Join(lines, "\n"))
	fmt.Fprintf(w, "\nRun 'docsd %s SUBCOMMAND --help' for its flags.\n", group)
}

// allSynopses are the synopses of every command with a subcommand.
func allSynopses() map[string]string {
	all := map[string]string{"secrets rotate": secretsSynopsis, "search reindex": searchSynopsis}
	for k, v := range adminSynopses {
		all[k] = v
	}
	return all
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// group answers a command group without a known subcommand: help on stdout
// when asked (exit 0), else help and a usage error.
func (c *command) group(group, sub string) error {
	groupHelp(c.stdout, group)
	if isHelp(sub) {
		return flag.ErrHelp
	}
	if sub == "" {
		return usageError(fmt.Sprintf("%s: missing subcommand", group))
	}
	return usageError(fmt.Sprintf("unknown command %q", group+" "+sub))
}

// firstArg is args[0], or "" when there is none.
func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
