package builder

import (
	"strings"
	"testing"
)

// TestLostMountRace checks which failures runSandboxed starts again: only
// bwrap's own remount failure of a vanished /run/netns mount, before the
// command ran.
func TestLostMountRace(t *testing.T) {
	race := `bwrap: Can't bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/run/netns/docsd-build-24572-d51059a3": No such file or directory` + "\n"
	for _, tc := range []struct {
		name string
		res  processResult
		want bool
	}{
		{"the race", processResult{ExitCode: 1, Output: race}, true},
		{"the race, caught unmounting", processResult{ExitCode: 1, Output: strings.Replace(race, "No such file or directory", "Invalid argument", 1)}, true},
		{"another remount failure", processResult{ExitCode: 1, Output: strings.Replace(race, "No such file or directory", "Permission denied", 1)}, false},
		{"another exit code", processResult{ExitCode: 2, Output: race}, false},
		{"the command's own output after it", processResult{ExitCode: 1, Output: race + "fatal: repository not found\n"}, false},
		{"another bwrap failure", processResult{ExitCode: 1, Output: "bwrap: No permissions to creating new namespace\n"}, false},
		{"a command that printed it", processResult{ExitCode: 1, Output: "echo: " + race}, false},
	} {
		if got := lostMountRace(tc.res); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
