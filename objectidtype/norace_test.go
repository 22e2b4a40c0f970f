//go:build !race

package objectidtype

const raceEnabled = false
