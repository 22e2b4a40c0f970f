//go:build unix && !linux

package pgserver

import (
	"fmt"
	"os/exec"
	"runtime"
)

// canCheckUser refuses: without /proc, pgid cannot check that no other
// process runs as the server's user, and would share the server with it.
func canCheckUser() error {
	return fmt.Errorf("%w: running as root on %s, pgid cannot check that no other process runs as the embedded server's user, which could then read and change its files: run pgid as an unprivileged user (the server then runs as you), or use a server of your own with DATABASE_URL", ErrSharedUser, runtime.GOOS)
}

// startChecked refuses, as canCheckUser.
func startChecked(*credential, *exec.Cmd) (done func(), err error) {
	return nil, canCheckUser()
}
