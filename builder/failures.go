package builder

import (
	"errors"
	"fmt"
	"strings"

	"docsd/store"
)

// The build errors of behavior.md §7.8, word for word.
const (
	MsgSkip             = store.SkipMessage
	MsgRepoPublic       = "There was a problem connecting to your repository, ensure that your repository URL is correct and your repository is public. Private repositories are not supported."
	MsgRepoPrivate      = "There was a problem connecting to your repository, ensure that your repository URL is correct."
	MsgCheckoutFormat   = "Failed to checkout revision: %s"
	MsgClientMissingFmt = "The %s client is not installed on this server."
	MsgSubmoduleFormat  = "One or more submodule URLs are not valid: %s, git/ssh URL schemas for submodules are not supported."
	MsgDuplicateMachine = "You can not have two versions with the name latest or stable."
	MsgConfigPrefix     = "Problem in your project's configuration. "
	MsgConfPyNotFound   = "A configuration file was not found. Make sure you have a conf.py file in your repository."
	MsgConfPyMultiple   = "We found more than one conf.py and are not sure which one to use. Please, specify the correct file under the Advanced settings tab in the project's Admin."
	MsgNoTeX            = "No TeX files were found"
	MsgCommandFormat    = `Command "%s" failed with exit code %d.`
	MsgTimeout          = "Build exited due to time out"
	MsgInternalFormat   = "There was a problem with docsd while building your documentation. Please try again later. However, if this problem persists, please report this to us with your build id (%d)."
	MsgNoDocumentation  = "No documentation found: add a .readthedocs.yaml, a mkdocs.yml or a Sphinx conf.py."
)

// failure is a build failure with the message the user sees. Errors that
// are not failures are docsd's own problems and end the build with the
// internal-error message.
type failure struct {
	msg string
	// fromCommand marks a failing command: the build's exit code is the
	// highest of its commands' (§7.8); other failures have exit code 1.
	fromCommand bool
}

func (f *failure) Error() string { return f.msg }

// fail returns a failure with message msg.
func fail(msg string) error { return &failure{msg: msg} }

// failf returns a failure with a formatted message.
func failf(format string, args ...any) error { return &failure{msg: fmt.Sprintf(format, args...)} }

// commandFailed is the failure of a recorded command that exited non-zero.
func commandFailed(command string, code int) error {
	return &failure{msg: fmt.Sprintf(MsgCommandFormat, command, code), fromCommand: true}
}

// asFailure returns err's failure, if it is one.
func asFailure(err error) (*failure, bool) {
	var f *failure
	ok := errors.As(err, &f)
	return f, ok
}

// configFailure is a §7.5 configuration problem.
func configFailure(msg string) error { return fail(MsgConfigPrefix + msg) }

// invalidKey is `Invalid "<key>": <reason>`.
func invalidKey(key, reason string) error {
	return configFailure(fmt.Sprintf(`Invalid "%s": %s`, key, reason))
}

// invalidFile is `Invalid "<key>": <file name>: <message>`, for rules about
// the file as a whole.
func invalidFile(key, file, message string) error {
	return configFailure(fmt.Sprintf(`Invalid "%s": %s: %s`, key, file, message))
}

// The reasons of §7.5's validation messages.
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
