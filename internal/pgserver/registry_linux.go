package pgserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// registryDir lists, as files named <pid>-<start time>, the processes that
// pgid processes running as root started as a server's user and that have
// not ended: their descendants are pgid's servers, every other process of
// that user is someone else's.
const registryDir = RootCacheDir + "/servers"

// canCheckUser reports whether startChecked can check the server's user:
// on Linux, through /proc.
func canCheckUser() error { return nil }

// startChecked starts cmd, which runs as cred, once no process runs as
// cred's uid but pgid's own servers (those started through here, by this
// or another process, and their descendants). The check, the start and the
// registration happen under an exclusive lock on the registry, so that two
// pgid processes starting servers at once see each other's. done removes
// cmd from the registry once it has ended.
func startChecked(cred *credential, cmd *exec.Cmd) (done func(), err error) {
	r := pathRule{use: "the registry of pgid's embedded servers", fix: "make it root's, or remove it"}
	if _, err := mkdirSecure(r, RootCacheDir, 0o755); err != nil {
		return nil, err
	}
	dir, err := mkdirSecure(r, registryDir, 0o700)
	if err != nil {
		return nil, err
	}
	unlock, err := lockRegistry(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()

	procs := processes()
	registered := map[int]uint64{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		pidText, startText, ok := strings.Cut(e.Name(), "-")
		pid, err1 := strconv.Atoi(pidText)
		start, err2 := strconv.ParseUint(startText, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			continue // the lock
		}
		if p, live := procs[pid]; live && p.start == start {
			registered[pid] = start
		} else {
			os.Remove(filepath.Join(dir, e.Name())) // ended without done: its process died
		}
	}
	var others []string
	for pid, p := range procs {
		if p.runsAs(cred.uid) && !p.zombie && !descends(procs, registered, pid, cred.uid) {
			others = append(others, fmt.Sprintf("%d (%s)", pid, p.name))
		}
	}
	if len(others) > 0 {
		slices.Sort(others)
		return nil, fmt.Errorf("%w: process %s already runs as %s (uid %d) and is not one of pgid's embedded servers: it could read and change the server's files and signal it. Stop it, or let the server run as a user no other process uses: unset %s (and RunAsUser) for %s, a system user pgid creates for it alone, or name another such user there",
			ErrSharedUser, strings.Join(others, ", "), cred.name, cred.uid, EnvUser, DefaultUser)
	}

	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// What was started is listed before the lock is released: a child
	// that already ended is not, and needs no listing.
	p, ok := readProc(cmd.Process.Pid)
	if !ok {
		return func() {}, nil
	}
	entry := filepath.Join(dir, strconv.Itoa(cmd.Process.Pid)+"-"+strconv.FormatUint(p.start, 10))
	if err := os.WriteFile(entry, nil, 0o600); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	// The entry goes under the lock: a check that has read the processes
	// (cmd's children among them, while cmd ran) reads the entries before
	// this one is gone.
	return func() {
		if unlock, err := lockRegistry(dir); err == nil {
			defer unlock()
		}
		os.Remove(entry)
	}, nil
}

// lockRegistry takes the registry's exclusive lock, dir being the registry.
func lockRegistry(dir string) (unlock func(), err error) {
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	return func() { lock.Close() }, nil // and unlocked
}

// descends reports whether pid is a registered process or descends from
// one through processes that all run as uid.
func descends(procs map[int]proc, registered map[int]uint64, pid, uid int) bool {
	for range 1000 {
		p, ok := procs[pid]
		if !ok || !p.runsAs(uid) {
			return false
		}
		if _, ok := registered[pid]; ok {
			return true
		}
		pid = p.ppid
	}
	return false
}

// proc is what the registry needs of a process.
type proc struct {
	name   string
	ppid   int
	start  uint64 // clock ticks after boot: with the pid, names the process
	zombie bool
	uids   [4]int // real, effective, saved, filesystem
	more   []int  // those of the live threads of a zombie leader
}

func (p proc) runsAs(uid int) bool {
	return slices.Contains(p.uids[:], uid) || slices.Contains(p.more, uid)
}

// processes reads every process in /proc; those that end meanwhile are left
// out.
func processes() map[int]proc {
	procs := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			procs[pid] = p
		}
	}
	return procs
}

// readProc reads /proc/<pid>/stat and the Uid line of /proc/<pid>/status.
// A zombie thread-group leader whose other threads run (its main thread
// called pthread_exit) is a running process: its uids are those of all
// its live threads.
func readProc(pid int) (proc, bool) {
	p, ok := readTask("/proc/" + strconv.Itoa(pid))
	if !ok || !p.zombie {
		return p, ok
	}
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	var live []int
	for _, e := range tasks {
		if e.Name() == strconv.Itoa(pid) {
			continue
		}
		if t, ok := readTask("/proc/" + strconv.Itoa(pid) + "/task/" + e.Name()); ok && !t.zombie {
			p.zombie = false
			live = append(live, t.uids[:]...)
		}
	}
	p.more = live
	return p, true
}

// readTask reads dir/stat and the Uid line of dir/status, dir being a
// process's or a thread's directory in /proc.
func readTask(dir string) (proc, bool) {
	stat, err1 := os.ReadFile(dir + "/stat")
	status, err2 := os.ReadFile(dir + "/status")
	if errors.Join(err1, err2) != nil {
		return proc{}, false
	}
	// pid (comm) state ppid ... with starttime the 22nd field; comm may
	// hold spaces and parentheses, so the fields start after the last ')'.
	lp, rp := strings.IndexByte(string(stat), '('), strings.LastIndexByte(string(stat), ')')
	if lp < 0 || rp < lp {
		return proc{}, false
	}
	f := strings.Fields(string(stat[rp+1:]))
	if len(f) < 20 {
		return proc{}, false
	}
	p := proc{name: string(stat[lp+1 : rp]), zombie: f[0] == "Z" || f[0] == "X"}
	var err error
	if p.ppid, err = strconv.Atoi(f[1]); err != nil {
		return proc{}, false
	}
	if p.start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return proc{}, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			u := strings.Fields(rest)
			if len(u) != 4 {
				return proc{}, false
			}
			for i := range u {
				if p.uids[i], err = strconv.Atoi(u[i]); err != nil {
					return proc{}, false
				}
			}
			return p, true
		}
	}
	return proc{}, false
}
