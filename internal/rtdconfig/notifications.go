package rtdconfig

import "strings"

// headers are the notification headers of the failures this package
// reports, by message id: Read the Docs' header texts, and for the ids of
// the uv install rules and the conf.py name rule, which Read the Docs
// shows with its generic configuration headers, those headers.
var headers = map[string]string{
	IDConfigGeneric:      "There was an unexpected problem in your config file",
	IDConfigPathNotFound: "Configuration file not found",
	IDConfPyNotFound:     "Sphinx configuration file is missing",
	IDConfPyMultiple:     "Multiple Sphinx configuration files found",

	IDPythonSystemPackagesRemoved:                                   "Invalid configuration key",
	IDPythonUseSystemSitePackagesRemoved:                            "Invalid configuration key",
	"config:build:missing-build-tools-commands":                     "Missing configuration option",
	"config:build:jobs-and-commands":                                "Invalid configuration option",
	"config:build:jobs:build:missing-in-formats":                    "Invalid configuration option",
	"config:apt:invalid-package-name-prefix":                        "Invalid APT package name",
	"config:apt:invalid-package-name":                               "Invalid APT package name",
	"config:python:pip-required":                                    "Invalid Python install method",
	"config:python:pip-path-requirement-required":                   "Missing configuration key",
	"config:base:sphinx-mkdocs-together":                            "Invalid configuration key",
	"config:submodules:include-exclude-together":                    "Invalid configuration key",
	"config:conda:required":                                         "Missing required key",
	"config:sphinx:invalid-config-file":                             "Invalid configuration option",
	"config:python:uv-command-required":                             "Missing configuration key",
	"config:python:uv-multiple-install-entries-invalid":             "Invalid configuration option",
	"config:python:uv-sync-requirements-invalid":                    "Invalid configuration option",
	"config:python:uv-pip-groups-not-allowed":                       "Invalid configuration option",
	"config:python:uv-pip-requirements-or-path-required":            "Missing configuration key",
	"config:python:uv-pip-requirements-and-path-mutually-exclusive": "Invalid configuration option",
	"config:python:uv-groups-extras-empty":                          "Invalid configuration option",
	"config:python:uv-groups-extras-invalid-type":                   "Invalid configuration option",
	"config:validation:invalid-bool":                                "Config file validation error",
	"config:validation:invalid-choice":                              "Config file validation error",
	"config:validation:invalid-dict":                                "Config file validation error",
	"config:validation:invalid-path":                                "Config file validation error",
	"config:validation:invalid-path-pattern":                        "Config file validation error",
	"config:validation:invalid-string":                              "Config file validation error",
	"config:validation:invalid-list":                                "Config file validation error",
	"config:validation:value-not-found":                             "Config file validation error",
}

// invalidKeyBody is the message of IDInvalidKeyName around its key.
const invalidKeyBody, invalidKeyEnd = "Make sure the key name ", " is correct."

// Header returns the notification header of a failure this package
// reported, from its message id and the build's error text msg, and false
// for an id it does not report. Read the Docs' header of an unknown key
// names the key ("Invalid configuration key: <key>"), which msg carries in
// the form invalidKey wrote it.
func Header(id, msg string) (string, bool) {
	if id == IDInvalidKeyName {
		key := strings.TrimSuffix(strings.TrimPrefix(msg, MsgConfigPrefix+invalidKeyBody), invalidKeyEnd)
		return "Invalid configuration key: " + key, true
	}
	h, ok := headers[id]
	return h, ok
}

// unknownKeyError is the failure of the current rules for the first key
// they do not know: the removal message of a key Read the Docs removed (or
// of a key under it), else the unknown key's.
func unknownKeyError(key string) error {
	for removed, id := range removedKeys {
		if key == removed || strings.HasPrefix(key, removed+".") {
			return removedKeyError(id, removed)
		}
	}
	return rule(IDInvalidKeyName, invalidKeyBody+key+invalidKeyEnd)
}

// removedKeyError is Read the Docs' message for a removed key. Its HTML
// body links "Read our blog post" to
// https://blog.readthedocs.com/drop-support-system-packages/; as plain text
// the link's words stay, and the stray quote that ends Read the Docs'
// text is dropped.
func removedKeyError(id, key string) error {
	return rule(id, "The configuration key "+key+" has been deprecated and removed. "+
		"Read our blog post to learn more about this change and how to upgrade your configuration file.")
}
