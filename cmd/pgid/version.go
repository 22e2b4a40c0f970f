package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

const (
	cmdModule = "github.com/pgid/pgid/cmd/pgid"
	libModule = "github.com/pgid/pgid"
)

// version is what --version prints: the version of the module
// github.com/pgid/pgid/cmd/pgid this pgid was built from (vX.Y.Z after
// go install …/cmd/pgid@vX.Y.Z or go get -tool; "(devel)" from a clone's
// workspace; a version from git with GOWORK=off, "+dirty" when changed),
// the library's version when
// it differs (go get -tool builds with the service's github.com/pgid/pgid,
// whose migrations are the ones pgid applies), the commit and its time when
// the build recorded them (a build in a git checkout), and the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "pgid (unknown version) " + runtime.Version()
	}
	return versionOf(bi)
}

// versionOf is version's line for the build info bi.
func versionOf(bi *debug.BuildInfo) string {
	mod := bi.Main
	tool := false // built as a dependency: go get -tool, go build in a service
	if mod.Path != cmdModule {
		mod = debug.Module{}
		for _, d := range bi.Deps {
			if d.Path == cmdModule {
				mod, tool = *d, true
				if d.Replace != nil {
					mod = *d.Replace
				}
			}
		}
	}
	v := mod.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"pgid", v}
	for _, d := range bi.Deps {
		// "+dirty": go build in a clone at a tag, with changes (Go 1.24+).
		if d.Path == libModule && d.Version != "" && d.Version != strings.TrimSuffix(mod.Version, "+dirty") {
			parts = append(parts, "(library "+d.Version+")")
		}
	}
	if !tool {
		// The revision belongs to the main module's repository: only
		// pgid's own when pgid is the main module.
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			parts = append(parts, rev[:min(12, len(rev))])
			if t := settings["vcs.time"]; t != "" {
				parts = append(parts, t)
			}
			if settings["vcs.modified"] == "true" {
				parts = append(parts, "(modified)")
			}
		}
	}
	gov := bi.GoVersion
	if gov == "" {
		gov = runtime.Version()
	}
	return strings.Join(append(parts, gov), " ")
}
