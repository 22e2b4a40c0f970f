//go:build !race

package opaque

const raceEnabled = false
