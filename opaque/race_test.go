//go:build race

package opaque

const raceEnabled = true
