//go:build unix && !linux

package pgserver

import (
	"fmt"
	"os/exec"
	"runtime"
)

// startChecked refuses: without /proc, pgid cannot check that no other
// process runs as the server's user, and would share the server with it.
func startChecked(cred *credential, cmd *exec.Cmd) (done func(), err error) {
	return nil, fmt.Errorf("%w: running as root on %s, pgid cannot check that no other process runs as %s, who could then read and change the embedded server's files: run pgid as an unprivileged user (the server then runs as you), or use a server of your own with DATABASE_URL", ErrSharedUser, runtime.GOOS, cred.name)
}
