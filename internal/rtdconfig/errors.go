package rtdconfig

import (
	"errors"
	"fmt"
	"strings"
)

// Messages that configuration loading produces, Read the Docs' texts
// (MsgNoDocumentation is docsd's own).
const (
	MsgConfigPrefix    = "Problem in your project's configuration. "
	MsgConfPyNotFound  = "A configuration file was not found. Make sure you have a conf.py file in your repository."
	MsgConfPyMultiple  = "We found more than one conf.py and are not sure which one to use. Please, specify the correct file under the Advanced settings tab in the project's Admin."
	MsgNoDocumentation = "No documentation found: add a .readthedocs.yaml, a mkdocs.yml or a Sphinx conf.py."
)

// Notification message ids of the failures this package reports, Read the
// Docs' ids; a failed build's notification carries its id.
const (
	IDConfigGeneric      = "config:generic"
	IDConfigPathNotFound = "config:path:not-found"
	IDConfPyNotFound     = "project:sphinx:conf-py-not-found"
	IDConfPyMultiple     = "project:sphinx:multiple-conf-py-files-found"
	IDFileNotFound       = "project:file:not-found"
	// IDNoDocumentation has no RTD counterpart; a failure of docsd's own
	// detection is reported as a generic build problem.
	IDNoDocumentation = "build:user:generic"
	// IDInvalidKeyName is an unknown key under the current rules.
	IDInvalidKeyName = "config:base:invalid-key-name"
	// IDPythonSystemPackagesRemoved and
	// IDPythonUseSystemSitePackagesRemoved are the removed keys of
	// removedKeys under the current rules.
	IDPythonSystemPackagesRemoved        = "config:python:system-packages-removed"
	IDPythonUseSystemSitePackagesRemoved = "config:python:use-system-site-packages-removed"
)

// Error is a configuration failure: Msg is the build's exact `error`, ID
// the notification message id that goes with it.
type Error struct {
	Msg string
	ID  string
}

func (e *Error) Error() string { return e.Msg }

// AsError returns err's *Error, if it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// fail returns an Error with message msg and id.
func fail(id, msg string) error { return &Error{Msg: msg, ID: id} }

// configFailure is a configuration problem with the generic message id:
// parse errors, an invalid version and the legacy rules' validation.
func configFailure(msg string) error { return fail(IDConfigGeneric, MsgConfigPrefix+msg) }

// invalidKey is `Invalid "<key>": <reason>`.
func invalidKey(key, reason string) error {
	return configFailure(fmt.Sprintf(`Invalid "%s": %s`, key, reason))
}

// invalidFile is `Invalid "<key>": <file name>: <message>`, for rules about
// the file as a whole.
func invalidFile(key, file, message string) error {
	return configFailure(fmt.Sprintf(`Invalid "%s": %s: %s`, key, file, message))
}

// The reasons of the legacy rules' validation messages.
func reasonChoice(choices []string, v any) string {
	return fmt.Sprintf("expected one of (%s), got %s", strings.Join(choices, ", "), pyStr(v))
}

func reasonBool(v any) string {
	return fmt.Sprintf("expected one of (0, 1, true, false), got %s", pyStr(v))
}

func reasonDict(v any) string        { return fmt.Sprintf("%s is not a dictionary", pyStr(v)) }
func reasonPath(v any) string        { return fmt.Sprintf("path %s does not exist", pyStr(v)) }
func reasonNotFound(k string) string { return k + " not found" }

const (
	reasonString = "expected string"
	reasonList   = "expected list"
)
