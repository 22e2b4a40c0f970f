//go:build !race

package pgidpgx

const raceEnabled = false
