package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/ulidtype"
)

// envKeys names the variable that holds the keys when --key-file is not
// given, in the key file's format.
const envKeys = "PGID_OPAQUE_KEYS"

// errKeyFile: a key file refused before reading it (someone else's, on a
// path others can change, not a regular file, readable by others or too
// large).
var errKeyFile = errors.New("key file refused")

// maxKeyFileSize bounds a key file: four keys of 64 hex digits take under
// 300 bytes; the rest leaves room for comments.
const maxKeyFileSize = 64 << 10

// loadCodec reads the keys from path, or from $PGID_OPAQUE_KEYS.
// Nothing of a key's text ever reaches an error message.
func loadCodec(e *env, path string) (*opaque.Codec, error) {
	var text string
	switch {
	case path != "":
		b, err := readKeyFile(path)
		if err != nil {
			return nil, err
		}
		text = string(b)
	case e.getenv(envKeys) != "":
		text = strings.ReplaceAll(e.getenv(envKeys), ",", "\n")
	default:
		return nil, usagef("no keys: give --key-file FILE or set %s (lines of ID:hex, the first is current; make one with: pgid new-key)", envKeys)
	}
	cur, older, err := opaque.ParseKeys(text)
	if err == nil {
		var c *opaque.Codec
		if c, err = opaque.NewCodec(cur, older...); err == nil {
			return c, nil
		}
	}
	where := envKeys
	if path != "" {
		where = path
	}
	return nil, usagef("%s: %v", where, err)
}

// readKeyFile reads a key file, and checks the file it reads: openKeyFile
// checks the path (on Unix: every directory and link on it owned by you or
// root and writable by no one else, the file owned by you or root) and
// opens it so that no one else can swap in another file between the checks
// and the read. It refuses, with [errKeyFile], a file that is not a regular
// file (a FIFO would block, a device never end), one others may read (as
// ssh refuses such a private key) and one over maxKeyFileSize, which it
// reads no further than that.
func readKeyFile(path string) ([]byte, error) {
	f, err := openKeyFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, usageError{err}
	}
	switch {
	case !fi.Mode().IsRegular():
		return nil, usagef("%w: %s is not a regular file but %s: give a file of lines ID:hex (make one with: pgid new-key > FILE)", errKeyFile, path, fileKind(fi.Mode()))
	case fi.Mode().Perm()&0o077 != 0:
		return nil, usagef("%w: %s is readable by others (mode %04o): chmod 600 %s", errKeyFile, path, fi.Mode().Perm(), path)
	case fi.Size() > maxKeyFileSize:
		return nil, keyFileSizeError(path, strconv.FormatInt(fi.Size(), 10))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, usageError{err}
	}
	if len(b) > maxKeyFileSize { // it grew since Stat
		return nil, keyFileSizeError(path, "more than "+strconv.Itoa(maxKeyFileSize))
	}
	return b, nil
}

func keyFileSizeError(path, size string) error {
	return usagef("%w: %s has %s bytes; a key file has at most %d (lines of ID:hex, a few hundred bytes): is it the right file?", errKeyFile, path, size, maxKeyFileSize)
}

// fileKind names the type of a file that is not a regular file.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "of type " + m.Type().String()
}

// symlinkError is the error for a key file that is a symbolic link.
func symlinkError(path string) error {
	to, err := os.Readlink(path)
	if err != nil { // swapped again since
		return usagef("%w: %s is a symbolic link: give --key-file the file it points to (a link could be swapped between the check of the file and the read)", errKeyFile, path)
	}
	if !filepath.IsAbs(to) {
		to = filepath.Join(filepath.Dir(path), to)
	}
	return usagef("%w: %s is a symbolic link (to %s): give --key-file %s, the file itself (a link could be swapped between the check of the file and the read)", errKeyFile, path, to, to)
}

// looksLikeCode reports whether a has the length and alphabet of a public
// code (see package opaque).
func looksLikeCode(a string) bool {
	switch len(a) {
	case opaque.ObjectIDCodeLen:
		return strings.Trim(a, objectidtype.ShortAlphabet) == ""
	case opaque.ULIDCodeLen:
		return strings.Trim(strings.ToUpper(a), ulidtype.Alphabet) == ""
	}
	return false
}

// argsOrStdin returns pos, or the lines of stdin when pos is empty and
// stdin is not a terminal.
func argsOrStdin(pos []string, stdin io.Reader) ([]string, error) {
	if len(pos) > 0 || stdin == nil {
		return pos, nil
	}
	if f, ok := stdin.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return nil, nil
		}
	}
	var lines []string
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// codecAndInputs defines --key-file and --json (its help jsonHelp) on fs,
// parses args with it and returns the codec of --key-file (or the
// environment), the inputs, from the arguments or stdin, and whether --json
// was given.
func codecAndInputs(e *env, fs *flag.FlagSet, args []string, jsonHelp, what string) (c *opaque.Codec, pos []string, asJSON bool, err error) {
	keyFile := fs.String("key-file", "", "the keys, lines of ID:hex (default $"+envKeys+")")
	js := fs.Bool("json", false, jsonHelp)
	if pos, err = parse(e, fs, args); err != nil {
		return nil, nil, false, err
	}
	if c, err = loadCodec(e, *keyFile); err != nil {
		return nil, nil, false, err
	}
	if pos, err = argsOrStdin(pos, e.stdin); err != nil {
		return nil, nil, false, err
	}
	if len(pos) == 0 {
		return nil, nil, false, usagef("want %s as arguments or lines on stdin", what)
	}
	return c, pos, *js, nil
}

func cmdSeal(_ context.Context, e *env, args []string) error {
	c, pos, asJSON, err := codecAndInputs(e, newFlags(e, "seal"), args, `print [{"input", "kind", "code"}]`, "IDs (ULID, UUID, ObjectId hex or short)")
	if err != nil {
		return err
	}
	type sealed struct {
		Input string `json:"input"`
		Kind  string `json:"kind"`
		Code  string `json:"code"`
	}
	var out []sealed
	for _, s := range pos {
		info, err := parseAny(s)
		if err != nil {
			return usageError{err}
		}
		var code string
		if info.Kind != "objectid" { // a ULID, or any other 16 bytes
			u, _ := ulidtype.Parse(s)
			code = c.ULIDCode(u)
		} else {
			o, _ := objectidtype.Parse(s)
			code = c.ObjectIDCode(o)
		}
		out = append(out, sealed{s, info.Kind, code})
	}
	if asJSON {
		return writeJSON(e.stdout, out)
	}
	for _, o := range out {
		fmt.Fprintln(e.stdout, o.Code)
	}
	return nil
}

func cmdOpen(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "open")
	all := fs.Bool("candidates", false, "for an ObjectId code, print the ID under every key, current first (codes do not name their key)")
	c, pos, asJSON, err := codecAndInputs(e, fs, args, `print [{"code", "kind", "id", "candidates"}]`, "codes")
	if err != nil {
		return err
	}
	type opened struct {
		Code       string   `json:"code"`
		Kind       string   `json:"kind"`
		ID         string   `json:"id"`
		Candidates []string `json:"candidates,omitempty"`
	}
	var out []opened
	for _, code := range pos {
		switch len(code) {
		case opaque.ULIDCodeLen:
			id, err := c.OpenULID(code)
			if err != nil {
				return usageError{err}
			}
			out = append(out, opened{Code: code, Kind: "ulid", ID: id.String()})
		default:
			ids, err := c.AppendObjectIDCandidates(nil, code)
			if err != nil {
				return usagef("%v (a ULID code has %d characters, an ObjectId code %d)", err, opaque.ULIDCodeLen, opaque.ObjectIDCodeLen)
			}
			o := opened{Code: code, Kind: "objectid", ID: ids[0].String()}
			if *all {
				for _, id := range ids {
					o.Candidates = append(o.Candidates, id.String())
				}
			}
			out = append(out, o)
		}
	}
	if asJSON {
		return writeJSON(e.stdout, out)
	}
	for _, o := range out {
		if len(o.Candidates) > 0 {
			fmt.Fprintln(e.stdout, strings.Join(o.Candidates, " "))
		} else {
			fmt.Fprintln(e.stdout, o.ID)
		}
	}
	return nil
}

func cmdNewKey(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "new-key")
	id := fs.Uint("id", 0, "the key's ID, 0 to 3, written into ULID codes")
	size := fs.Int("bytes", 32, "16, 24 or 32 (AES-128, -192, -256)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if *id >= opaque.MaxKeys {
		return usagef("--id %d: want 0 to %d", *id, opaque.MaxKeys-1)
	}
	if *size != 16 && *size != 24 && *size != 32 {
		return usagef("--bytes %d: want 16, 24 or 32", *size)
	}
	line, err := opaque.GenerateKeyText(uint8(*id), *size)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, line)
	return err
}
