package rtdconfig

import "strings"

// ruleSet is a set of the rule sets that read a version 2 key.
type ruleSet uint8

const (
	// legacyRules read version 2 files in the form with build.image or
	// without build.
	legacyRules ruleSet = 1 << iota
	// currentRules read files with a build key only the current schema
	// knows.
	currentRules

	bothRules = legacyRules | currentRules
)

// configKey is one key of a version 2 file: its dotted path, `*` standing
// for any item of a list, and the rule sets that read it.
type configKey struct {
	path  string
	rules ruleSet
}

// configKeys is the one list of the keys of version 2 files. Each rule
// set's known keys, for its sections and for its unknown-key check, are
// those this list gives it, so that a key is known to both rule sets
// unless the list says otherwise. Keys of one rule set only: the form
// build.image, python.version and python.system_packages belong to
// (Read the Docs removed them with build.os), the build keys that select
// the current rules, and the keys of a `method: uv` install entry, a
// method only the current rules offer.
var configKeys = []configKey{
	{"version", bothRules},
	{"formats", bothRules},
	{"build", bothRules},
	{"build.image", legacyRules},
	{"build.os", currentRules},
	{"build.tools", currentRules},
	{"build.jobs", currentRules},
	{"build.commands", currentRules},
	{"build.apt_packages", currentRules},
	{"conda", bothRules},
	{"conda.environment", bothRules},
	{"python", bothRules},
	{"python.version", legacyRules},
	{"python.system_packages", legacyRules},
	{"python.install", bothRules},
	{"python.install.*.requirements", bothRules},
	{"python.install.*.path", bothRules},
	{"python.install.*.method", bothRules},
	{"python.install.*.extra_requirements", bothRules},
	{"python.install.*.command", currentRules},
	{"python.install.*.groups", currentRules},
	{"python.install.*.extras", currentRules},
	{"sphinx", bothRules},
	{"sphinx.builder", bothRules},
	{"sphinx.configuration", bothRules},
	{"sphinx.fail_on_warning", bothRules},
	{"mkdocs", bothRules},
	{"mkdocs.configuration", bothRules},
	{"mkdocs.fail_on_warning", bothRules},
	{"submodules", bothRules},
	{"submodules.include", bothRules},
	{"submodules.exclude", bothRules},
	{"submodules.recursive", bothRules},
	{"search", bothRules},
	{"search.ranking", bothRules},
	{"search.ignore", bothRules},
}

// removedKeys are the keys Read the Docs removed with a message of their
// own, by dotted path: a file under the current rules that has one fails
// with that message (and its id) rather than as an unknown key.
var removedKeys = map[string]string{
	"python.system_packages":          IDPythonSystemPackagesRemoved,
	"python.use_system_site_packages": IDPythonUseSystemSitePackagesRemoved,
}

// knownTree returns the keys rules knows, as nested knownKeys: a mapping
// key maps to its children, a leaf to nil. List items (`*`) are left out:
// which keys an item may have depends on its kind, and the section that
// validates the list fills them in (itemKeys).
func knownTree(rules ruleSet) knownKeys {
	root := knownKeys{}
	for _, k := range configKeys {
		if k.rules&rules == 0 || strings.Contains(k.path, "*") {
			continue
		}
		parts := strings.Split(k.path, ".")
		m := root
		for _, p := range parts[:len(parts)-1] {
			sub, _ := m[p].(knownKeys)
			if sub == nil {
				sub = knownKeys{}
				m[p] = sub
			}
			m = sub
		}
		if _, ok := m[parts[len(parts)-1]]; !ok {
			m[parts[len(parts)-1]] = nil
		}
	}
	return root
}

// section returns the known keys under a top-level key of tree, nil for a
// leaf.
func (t knownKeys) section(key string) knownKeys {
	sub, _ := t[key].(knownKeys)
	return sub
}

// itemKeys returns the keys named of the items of the list at path, which
// must all be items keys rules knows: a kind of entry (a requirements
// entry, a path entry, a uv entry) has a subset of the list's item keys.
func itemKeys(rules ruleSet, path string, names ...string) knownKeys {
	out := knownKeys{}
	for _, name := range names {
		want := path + ".*." + name
		found := false
		for _, k := range configKeys {
			if k.path == want && k.rules&rules != 0 {
				found = true
				break
			}
		}
		if !found {
			panic("rtdconfig: " + want + " is not in configKeys for these rules")
		}
		out[name] = nil
	}
	return out
}
