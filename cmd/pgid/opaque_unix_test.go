//go:build unix && !aix && !solaris

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pgid/pgid/ulidtype"
)

// TestKeyFileNotRegular: a FIFO or a device as the key file is refused
// without reading it: a FIFO no one writes to does not hang pgid. (Not on
// AIX, Solaris or illumos, whose syscall package has no Mkfifo.)
func TestKeyFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, path := range []string{fifo, os.DevNull} {
		code, _, errOut := cli(t, "", nil, "seal", "--key-file", path, ulidtype.New().String())
		if code != 2 || !strings.Contains(errOut, "is not a regular file") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", path, code, errOut, "is not a regular file")
		}
		if _, err := loadCodec(&env{getenv: func(string) string { return "" }}, path); !errors.Is(err, errKeyFile) {
			t.Errorf("%s: %v, want errKeyFile", path, err)
		}
	}
}
