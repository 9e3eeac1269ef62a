//go:build !linux

package builder

import (
	"context"
	"fmt"
	"runtime"
)

// errNetnsPlatform is why network isolation can't be set up here: it is a
// Linux network and user namespace that pasta connects.
var errNetnsPlatform = fmt.Errorf("builds need Linux: network isolation is a Linux network namespace connected by pasta, and this is %s (--build-network=host gives builds this machine's network instead)", runtime.GOOS)

// open fails: there is no namespace to open (errNetnsPlatform).
func (n *netIsolation) open(context.Context) (*netns, error) {
	return nil, errNetnsPlatform
}

// close does nothing: no namespace was opened.
func (ns *netns) close() {}
