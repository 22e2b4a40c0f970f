package pgserver

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"testing"
)

// A process of the server's user that pgid started and that started a
// child, both ending while another start checks the user's processes: the
// check must not take the child for someone else's (ErrSharedUser). It used
// to read the processes, then the registry: a parent that ended in between
// had left the registry while its child was still in the list. Many short
// starts at once, of a user of the test's own, give that window many tries
// (with the old order, most runs refused within the first few hundred).
func TestRegistryChildOfEndedProcess(t *testing.T) {
	needRoot(t)
	t.Parallel()
	const user = "pgid-test-registry"
	uid, gid := ensureUser(t, user)
	cred := &credential{name: user, uid: uid, gid: gid}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		starts int
		errs   []error
	)
	for range 4 {
		wg.Go(func() {
			for range 60 {
				cmd := exec.Command("/bin/sh", "-c", "sleep 0.005 & wait")
				cmd.Dir = "/"
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
				done, err := startChecked(cred, cmd)
				mu.Lock()
				starts++
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
				if err != nil {
					continue
				}
				cmd.Wait()
				done()
			}
		})
	}
	wg.Wait()
	t.Logf("%d starts, %d refused", starts, len(errs))
	for i, err := range errs {
		if i == 3 {
			break
		}
		if !errors.Is(err, ErrSharedUser) {
			t.Errorf("start failed: %v", err)
		} else {
			t.Errorf("refused although every process of %s is pgid's: %v", user, err)
		}
	}
}
