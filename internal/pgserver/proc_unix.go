//go:build unix && !linux

package pgserver

import "syscall"

// setDeathSignal does nothing where there is no parent-death signal: a
// postmaster outlives a killed process there until stopped by hand.
func setDeathSignal(*syscall.SysProcAttr) {}
