//go:build race

package objectidtype

const raceEnabled = true
