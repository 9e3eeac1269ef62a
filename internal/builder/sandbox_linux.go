package builder

// errSandboxPlatform is nil: bubblewrap runs on Linux.
var errSandboxPlatform error
