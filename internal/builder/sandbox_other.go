//go:build !linux

package builder

import (
	"fmt"
	"runtime"
)

// errSandboxPlatform is why the build sandbox can't run here: bubblewrap
// is made of Linux namespaces.
var errSandboxPlatform = fmt.Errorf("builds need Linux: the build sandbox is bubblewrap, which runs on Linux only, and this is %s (--build-sandbox=off runs build commands unsandboxed)", runtime.GOOS)
