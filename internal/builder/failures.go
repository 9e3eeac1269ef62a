package builder

import (
	"errors"
	"fmt"

	"docsd/internal/rtdconfig"
	"docsd/store"
)

// The build errors, word for word as Read the Docs words them (see
// docs/user-guide/builds.md).
const (
	MsgSkip             = store.SkipMessage
	MsgRepoPublic       = "There was a problem connecting to your repository, ensure that your repository URL is correct and your repository is public. Private repositories are not supported."
	MsgRepoPrivate      = "There was a problem connecting to your repository, ensure that your repository URL is correct."
	MsgCheckoutFormat   = "Failed to checkout revision: %s"
	MsgClientMissingFmt = "The %s client is not installed on this server."
	MsgSubmoduleFormat  = "One or more submodule URLs are not valid: %s, git/ssh URL schemas for submodules are not supported."
	MsgDuplicateMachine = "You can not have two versions with the name latest or stable."
	MsgConfigPrefix     = rtdconfig.MsgConfigPrefix
	MsgConfPyNotFound   = rtdconfig.MsgConfPyNotFound
	MsgConfPyMultiple   = rtdconfig.MsgConfPyMultiple
	MsgNoTeX            = "No TeX files were found"
	MsgCommandFormat    = `Command "%s" failed with exit code %d.`
	MsgTimeout          = "Build exited due to time out"
	MsgInternalFormat   = "There was a problem with docsd while building your documentation. Please try again later. However, if this problem persists, please report this to us with your build id (%d)."
	MsgNoDocumentation  = rtdconfig.MsgNoDocumentation
	// MsgNetworkFormat ends a build whose step needs the network when
	// the server can't isolate it; %s says what is missing.
	MsgNetworkFormat = "This build needs the network, and this server can't give it a network of its own: %s. The server's operator can install or allow what is missing, or give builds the server's own network, local services included, with --build-network=host."
)

// Notification message ids: the ids Read the Docs' API reports next to a
// failed build's error.
const (
	IDProjectSkip         = store.SkipErrorID
	IDPublicCloneError    = "project:repository:public-clone-error"
	IDPrivateCloneError   = "project:repository:private-clone-error"
	IDCheckoutFailed      = "project:repository:checkout-failed"
	IDUnsupportedVCS      = "project:repository:unsupported-vcs"
	IDRepositoryGeneric   = "project:repository:generic-error"
	IDDuplicatedReserved  = "project:repository:duplicated-reserved-versions"
	IDTeXNotFound         = "build:user:tex-file-not-found"
	IDCommandFailed       = "build:user:generic"
	IDTimeOut             = "build:user:time-out"
	IDInternal            = "build:app:generic-with-build-id"
	IDExitCode183         = "build:user:exit-code-183"
	IDOutputNoHTML        = "build:user:output:no-html"
	IDOutputNoIndex       = "build:user:output:html-no-index-file"
	IDOutputNotADirectory = "build:user:output:is-no-a-directory"
	IDOutputNoFiles       = "build:user:output:has-0-files"
	IDOutputManyFiles     = "build:user:output:has-multiple-files"
	IDFileNotFound        = rtdconfig.IDFileNotFound
	IDNetworkUnavailable  = "build:app:network-isolation-unavailable"
	// IDPackageIndexUnreachable: an installer could not reach the package
	// index; IDAptPackagesUnavailable: build.apt_packages the machine
	// lacks.
	IDPackageIndexUnreachable = "build:app:package-index-unreachable"
	IDAptPackagesUnavailable  = "build:app:apt-packages-unavailable"
)

// messageIDs gives the notification id of each fixed message (or format)
// above, so that fail and failf always carry one.
var messageIDs = map[string]string{
	MsgSkip:             IDProjectSkip,
	MsgRepoPublic:       IDPublicCloneError,
	MsgRepoPrivate:      IDPrivateCloneError,
	MsgCheckoutFormat:   IDCheckoutFailed,
	MsgClientMissingFmt: IDUnsupportedVCS,
	MsgSubmoduleFormat:  IDRepositoryGeneric,
	MsgDuplicateMachine: IDDuplicatedReserved,
	MsgConfPyNotFound:   rtdconfig.IDConfPyNotFound,
	MsgConfPyMultiple:   rtdconfig.IDConfPyMultiple,
	MsgNoTeX:            IDTeXNotFound,
	MsgCommandFormat:    IDCommandFailed,
	MsgTimeout:          IDTimeOut,
	MsgInternalFormat:   IDInternal,
	MsgNetworkFormat:    IDNetworkUnavailable,

	// What builds can't install (packageindex.go).
	MsgPackageIndexFormat: IDPackageIndexUnreachable,
	MsgPipMissingFormat:   IDCommandFailed,
	MsgAptMissingFormat:   IDAptPackagesUnavailable,
}

// failure is a build failure with the message the user sees and its
// notification message id. Errors that are not
// failures are docsd's own problems and end the build with the
// internal-error message.
type failure struct {
	msg string
	id  string
	// fromCommand marks a failing command: the build's exit code is the
	// highest of its commands'; other failures have exit code 1.
	fromCommand bool
	// exitCode, when not 0, is the build's v2 exit code (183: a command
	// asked to skip the build).
	exitCode int
}

func (f *failure) Error() string { return f.msg }

// ID is the failure's notification message id; a failure made without
// one is a generic user problem.
func (f *failure) ID() string {
	if f.id == "" {
		return IDCommandFailed
	}
	return f.id
}

// Failure returns a build failure with message msg and notification id
// id: the constructor for failures the builder's other parts report
// (time-outs, limits, cancellation).
func Failure(id, msg string) error { return &failure{msg: msg, id: id} }

// fail returns a failure with one of the fixed messages above and its id.
func fail(msg string) error { return &failure{msg: msg, id: messageIDs[msg]} }

// failf returns a failure with a formatted message; the format names the
// id.
func failf(format string, args ...any) error {
	return &failure{msg: fmt.Sprintf(format, args...), id: messageIDs[format]}
}

// commandFailed is the failure of a recorded command that exited non-zero.
func commandFailed(command string, code int) error {
	return &failure{msg: fmt.Sprintf(MsgCommandFormat, command, code), id: IDCommandFailed, fromCommand: true}
}

// asFailure returns err's failure, if it is one. A configuration error
// of rtdconfig becomes a failure with its message and id.
func asFailure(err error) (*failure, bool) {
	var f *failure
	if errors.As(err, &f) {
		return f, true
	}
	if e, ok := rtdconfig.AsError(err); ok {
		return &failure{msg: e.Msg, id: e.ID}, true
	}
	return nil, false
}
