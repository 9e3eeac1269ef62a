package rtdconfig

// The choice tables of the current rules, Read the Docs' values in the
// order its messages list them.
var (
	// OSChoices are the `build.os` values.
	OSChoices = []string{"ubuntu-22.04", "ubuntu-24.04", "ubuntu-26.04", "ubuntu-lts-latest"}
	// RetiredOS is accepted with a note but not listed in messages.
	RetiredOS = "ubuntu-20.04"

	// ToolNames are the keys of `build.tools`.
	ToolNames = []string{"python", "nodejs", "ruby", "rust", "golang"}

	// ToolVersions are the allowed versions per tool, aliases last.
	ToolVersions = map[string][]string{
		"python": {"2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14",
			"miniconda3-4.7", "miniconda3-3.12-24.1", "miniconda3-3.12-24.9",
			"mambaforge-4.10", "mambaforge-22.9", "mambaforge-23.11",
			"miniforge3-25.11", "miniforge3-26.3",
			"3", "latest", "miniconda-latest", "mambaforge-latest", "miniforge3-latest"},
		"nodejs": {"14", "16", "18", "19", "20", "22", "23", "24", "25", "26", "latest"},
		"ruby":   {"3.3", "3.4", "4.0", "latest"},
		"rust":   {"1.55", "1.61", "1.64", "1.70", "1.75", "1.78", "1.82", "1.86", "1.91", "1.96", "latest"},
		"golang": {"1.17", "1.18", "1.19", "1.20", "1.21", "1.22", "1.23", "1.24", "1.25", "1.26", "latest"},
	}

	// JobNames are the keys of `build.jobs`, in message order.
	JobNames = []string{"pre_checkout", "post_checkout", "pre_system_dependencies", "post_system_dependencies",
		"pre_create_environment", "create_environment", "post_create_environment",
		"pre_install", "install", "post_install", "pre_build", "build", "post_build"}

	// BuildJobTypes are the keys of `build.jobs.build`.
	BuildJobTypes = []string{"html", "pdf", "epub", "htmlzip"}

	// DefaultSearchIgnore is `search.ignore` when the file has none.
	DefaultSearchIgnore = []string{"search.html", "search/index.html", "404.html", "404/index.html"}
)

// osImageTag is the stored image tag of a `build.os` value: an alias
// becomes the release it stands for.
func osImageTag(os string) string {
	if os == "ubuntu-lts-latest" {
		return "ubuntu-26.04"
	}
	return os
}

// IsConda reports whether a `build.tools.python` value is a conda flavour.
func IsConda(version string) bool {
	for _, p := range []string{"miniconda", "mambaforge", "miniforge3"} {
		if len(version) >= len(p) && version[:len(p)] == p {
			return true
		}
	}
	return false
}
