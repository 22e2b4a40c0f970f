package main

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	lib := func(v string) *debug.Module { return &debug.Module{Path: libModule, Version: v} }
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-25T21:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install @version", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: cmdModule, Version: "v0.1.0"},
			Deps: []*debug.Module{lib("v0.1.0")}}, "pgid v0.1.0 go1.26.8"},
		{"clone with git", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: cmdModule, Version: "(devel)"},
			Deps: []*debug.Module{lib("")}, Settings: vcs}, "pgid (devel) 0123456789ab 2026-11-25T21:00:00Z (modified) go1.26.8"},
		// GOWORK=off go build in a clone at a tag, with a change: Go stamps
		// v0.1.0+dirty; the library at v0.1.0 is the same release.
		{"clone at a tag, changed", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: cmdModule, Version: "v0.1.0+dirty"},
			Deps: []*debug.Module{lib("v0.1.0")}, Settings: vcs}, "pgid v0.1.0+dirty 0123456789ab 2026-11-25T21:00:00Z (modified) go1.26.8"},
		// go get -tool: the service is the main module; its git revision is
		// not pgid's, and its library version wins by MVS.
		{"go tool in a service", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/svc", Version: "(devel)"},
			Deps: []*debug.Module{{Path: cmdModule, Version: "v0.1.0"}, lib("v0.2.0")}, Settings: vcs}, "pgid v0.1.0 (library v0.2.0) go1.26.8"},
	} {
		if got := versionOf(&c.bi); got != c.want {
			t.Errorf("%s: versionOf = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{arg}, &out, &errOut); code != exitOK {
			t.Fatalf("pgid %s: exit %d, stderr %q", arg, code, errOut.String())
		}
		// A test binary's main module is cmd/pgid, built from this checkout.
		if got := strings.TrimSpace(out.String()); !strings.HasPrefix(got, "pgid ") || !strings.HasSuffix(got, runtime.Version()) {
			t.Errorf("pgid %s = %q, want \"pgid VERSION … %s\"", arg, got, runtime.Version())
		}
	}
}
