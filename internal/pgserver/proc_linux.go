package pgserver

import "syscall"

// setDeathSignal makes the postmaster stop (immediate shutdown) if this
// process dies without Close.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGQUIT }
