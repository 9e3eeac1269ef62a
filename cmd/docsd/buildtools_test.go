package main

import (
	"strings"
	"testing"
)

// TestBuildToolsSettings checks --build-tools / DOCSD_BUILD_TOOLS and
// --build-tools-strict.
func TestBuildToolsSettings(t *testing.T) {
	t.Setenv("DOCSD_BUILD_TOOLS", "python:3.10=/opt/py310/bin/python3.10,nodejs:18=/opt/node18/bin/node")
	t.Setenv("DOCSD_BUILD_TOOLS_STRICT", "true")
	if s := serveSettings(t); len(s.buildTools) != 2 || !s.BuildToolsStrict {
		t.Errorf("build tools %+v, strict %v", s.buildTools, s.BuildToolsStrict)
	}
	for value, want := range map[string]string{
		"python:3.10":                     "expected <tool>:<version>=<path>",
		"java:21=/usr/bin/java":           "unknown tool",
		"python:3.10=/root/py/bin/python": "build commands cannot see /root",
	} {
		s := Settings{Addr: "127.0.0.1:8000", DataDir: "x", ThrottleUserRate: "60/minute", MaxPageSize: 100, BuildTimeLimit: 600, BuildTools: value}
		if err := s.resolve(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--build-tools %q: %v, want an error with %q", value, err, want)
		}
	}
}
