// Package rtdconfig reads and validates a checkout's `.readthedocs.yaml`
// as Read the Docs does, with its exact messages, message ids and stored
// shapes. Two rule sets apply:
//
//   - the current rules, today's Read the Docs schema (`build.os`,
//     `build.tools`, `build.jobs`, `build.commands`, `build.apt_packages`),
//     for a file whose `build` mapping has a key only that schema knows;
//   - the legacy rules (version 1, and version 2 with `build.image` or
//     without `build`) for every other file, and without a file, so that old
//     tags and repositories keep building as they did.
//
// Read the Docs itself requires `build.os` in every version 2 file; docsd
// does not, since a self-hosted server builds old tags next to new ones.
package rtdconfig

import (
	"os"
	"path/filepath"
	"strings"
)

// Load finds, parses, classifies and validates the checkout's
// configuration, reading only the project's readthedocs_yaml_path when it
// is set. `version` absent or 1 is a legacy version 1 file, unless its
// `build` has a current key (then it is a current version 2 file); 2 or "2"
// is current or legacy version 2 by its `build` keys; anything else fails.
// Failures are *Error values carrying the exact `error` text and
// notification id; other errors are docsd's own.
func Load(in Input) (*Config, error) {
	file, err := findFile(in)
	if err != nil || file == "" {
		if err != nil {
			return nil, err
		}
		return configV1(in, "", &Map{vals: map[string]any{}})
	}
	data, err := readFile(in.Ckout, file)
	if err != nil {
		return nil, err
	}
	raw, err := parseConfigFile(file, data)
	if err != nil {
		return nil, err
	}
	version, _ := raw.Get("version")
	switch normaliseNumber(version) {
	case nil:
		if usesCurrentKeys(raw) {
			return configCurrent(in, file, raw)
		}
		return configV1(in, file, raw)
	case int64(1):
		return configV1(in, file, raw)
	case int64(2):
		if usesCurrentKeys(raw) {
			return configCurrent(in, file, raw)
		}
		return configV2(in, file, raw)
	}
	return nil, configFailure(`Invalid "version": Invalid version of the configuration file`)
}

// usesCurrentKeys reports whether the current rules apply: `build` is a
// mapping with at least one key only the current rules read (configKeys).
func usesCurrentKeys(raw *Map) bool {
	build, ok := valueOf(raw, "build").(*Map)
	if !ok {
		return false
	}
	for _, k := range configKeys {
		name, isBuildKey := strings.CutPrefix(k.path, "build.")
		if isBuildKey && k.rules == currentRules && build.has(name) {
			return true
		}
	}
	return false
}

// findFile returns the configuration file's path relative to the checkout
// ("" when there is none). A project's readthedocs_yaml_path is the only
// file looked at when set; it must exist and resolve inside the checkout.
func findFile(in Input) (string, error) {
	if p := in.Project.ReadthedocsYamlPath; p != nil && strings.TrimSpace(*p) != "" {
		rel := CleanRel(strings.TrimSpace(*p))
		if rel == "" || rel == "." || !insideCheckout(in.Ckout, rel) || !IsFile(filepath.Join(in.Ckout, filepath.FromSlash(rel))) {
			return "", fail(IDConfigPathNotFound, MsgConfigPrefix+"Configuration file not found in "+strings.TrimSpace(*p)+".")
		}
		return rel, nil
	}
	for _, name := range ConfigFileNames {
		if IsFile(filepath.Join(in.Ckout, name)) {
			return name, nil
		}
	}
	return "", nil
}

// insideCheckout reports whether rel, with symlinks resolved, stays inside
// the checkout.
func insideCheckout(ckout, rel string) bool {
	root, err := filepath.EvalSymlinks(ckout)
	if err != nil {
		return false
	}
	full, err := filepath.EvalSymlinks(filepath.Join(ckout, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	r, err := filepath.Rel(root, full)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// Classify reports whether the checkout's configuration file falls under
// the current rules, with its path and its `build.os` value as written, so
// that the builder can record `cat <file>` before validation. Files that
// cannot be read or parsed report false.
func Classify(in Input) (file string, os any, current bool) {
	file, err := findFile(in)
	if err != nil || file == "" {
		return "", nil, false
	}
	data, err := readFile(in.Ckout, file)
	if err != nil {
		return "", nil, false
	}
	raw, err := parseConfigFile(file, data)
	if err != nil || !usesCurrentKeys(raw) {
		return "", nil, false
	}
	switch normaliseNumber(valueOf(raw, "version")) {
	case nil, int64(2):
		build, _ := valueOf(raw, "build").(*Map)
		return file, valueOf(build, "os"), true
	}
	return "", nil, false
}

func readFile(ckout, rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(ckout, filepath.FromSlash(rel)))
}
