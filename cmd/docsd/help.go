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
var hiddenDefaults = map[string]bool{"secret-key": true, "old-secret-key": true, "database-url": true, "oidc-client-secret": true, "smtp-password": true}

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

// printHelp writes a command's usage and the flags it shows to w.
func (c *command) printHelp(w io.Writer, fs *flag.FlagSet) {
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
	all := map[string]string{"secrets rotate": secretsSynopsis, "search reindex": searchSynopsis, "audit prune": auditSynopsis}
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

// undefinedFlag returns the name of the first flag in args that fs does
// not define, reading args as fs.Parse does (one or two dashes, a value
// after "=" or, for a flag that is not boolean, in the next argument;
// parsing stops at "--" or the first argument that is not a flag).
func undefinedFlag(fs *flag.FlagSet, args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return "", false
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return name, name != "" && name[0] != '-' && name != "h" && name != "help"
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
			i++ // the flag's value
		}
	}
	return "", false
}

// unknownFlag answers a flag the command does not define: the command's
// usage on stderr, and an error naming the flag and the command's flag
// closest to it, when one is close enough to be a typing slip.
func (c *command) unknownFlag(fs *flag.FlagSet, name string) error {
	c.printHelp(c.stderr, fs)
	fmt.Fprintln(c.stderr)
	msg := "unknown flag --" + name
	if near := closestFlag(fs, name); near != "" {
		msg += "; did you mean --" + near + "?"
	}
	return usageError(msg)
}

// closestFlag is the flag of fs nearest to name by edit distance (a
// transposed pair counts as one edit), "" when none is within a third of
// name's length (at least one edit, at most three). Ties go to the first
// in fs's order.
func closestFlag(fs *flag.FlagSet, name string) string {
	limit := min(max(len(name)/3, 1), 3)
	best, bestDist := "", limit+1
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and transpositions of adjacent
// bytes, each one edit.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
