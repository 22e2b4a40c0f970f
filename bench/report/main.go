// Command report turns the output of the bench module's benchmarks into
// docs/BENCHMARKS.md, the PNG charts in docs/bench and a copy of the output
// there (docs/bench/output.txt). It reads `go test -bench`
// output on standard input, and starts nothing itself: no server, no test.
// From the bench directory, with a PostgreSQL 18 at DATABASE_URL:
//
//	{ for i in 1 2 3 4 5 6 7 8; do go test -run '^$' -bench 'ULID|ObjectID' -benchmem -benchtime 300ms . ; done &&
//	  go test -run '^$' -bench 'PGKeys|DBLoad' -benchtime 1x -count 3 -timeout 90m . ; } |
//	  go run ./report -docs ../docs
//
// Each benchmark's value is the median of its runs; the tables give the range
// as well when the runs differ.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	docs := flag.String("docs", "../docs", "directory for BENCHMARKS.md and bench/*.png")
	gomod := flag.String("gomod", "go.mod", "the bench module's go.mod, for the library versions")
	flag.Parse()
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		log.Fatal(err)
	}
	res, err := parse(bytes.NewReader(input))
	if err != nil {
		log.Fatal(err)
	}
	if len(res.order) == 0 {
		log.Fatal("report: no benchmark lines on standard input")
	}
	if err := os.MkdirAll(filepath.Join(*docs, "bench"), 0o755); err != nil {
		log.Fatal(err)
	}
	charts, err := drawCharts(res, filepath.Join(*docs, "bench"))
	if err != nil {
		log.Fatal(err)
	}
	// The raw output goes next to the charts, so that they and the tables
	// can be redrawn, and checked, from it.
	if err := os.WriteFile(filepath.Join(*docs, "bench", "output.txt"), input, 0o644); err != nil {
		log.Fatal(err)
	}
	md := markdown(res, readVersions(*gomod), charts)
	if err := os.WriteFile(filepath.Join(*docs, "BENCHMARKS.md"), []byte(md), 0o644); err != nil {
		log.Fatal(err)
	}
}

// results is everything read from the benchmark output.
type results struct {
	header   map[string]string   // goos, goarch, cpu, pkg
	servers  []string            // "pgid-bench: server" lines, distinct
	missing  map[string]string   // PGKeys kind -> why it was not measured
	params   map[string]string   // "pgid-bench: PGKeys rows ..." lines by benchmark
	order    []string            // benchmark names in first-seen order
	runs     map[string][]run    // by name without the -GOMAXPROCS suffix
	procs    string              // the -N suffix
	unitSeen map[string][]string // units of each benchmark in order
}

// run is one result line: unit -> value.
type run map[string]float64

func parse(r io.Reader) (*results, error) {
	res := &results{header: map[string]string{}, missing: map[string]string{},
		params: map[string]string{}, runs: map[string][]run{}, unitSeen: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "pgid-bench: server "):
			v := strings.TrimPrefix(line, "pgid-bench: server ")
			if !slices.Contains(res.servers, v) {
				res.servers = append(res.servers, v)
			}
		case strings.HasPrefix(line, "pgid-bench: kind "):
			rest := strings.TrimPrefix(line, "pgid-bench: kind ")
			name, why, _ := strings.Cut(rest, " ")
			res.missing[name] = why
		case strings.HasPrefix(line, "pgid-bench: "):
			rest := strings.TrimPrefix(line, "pgid-bench: ")
			name, v, _ := strings.Cut(rest, " ")
			res.params[name] = v
		case strings.HasPrefix(line, "Benchmark"):
			f := strings.Fields(line)
			if len(f) < 4 || len(f)%2 != 0 {
				continue
			}
			name := f[0]
			if i := strings.LastIndexByte(name, '-'); i > 0 {
				if _, err := strconv.Atoi(name[i+1:]); err == nil {
					res.procs = name[i+1:]
					name = name[:i]
				}
			}
			r := run{}
			for i := 2; i+1 < len(f); i += 2 {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return nil, fmt.Errorf("%q: %v", line, err)
				}
				r[f[i+1]] = v
				if !slices.Contains(res.unitSeen[name], f[i+1]) {
					res.unitSeen[name] = append(res.unitSeen[name], f[i+1])
				}
			}
			if _, ok := res.runs[name]; !ok {
				res.order = append(res.order, name)
			}
			res.runs[name] = append(res.runs[name], r)
		default:
			for _, k := range []string{"goos", "goarch", "cpu", "pkg"} {
				if v, ok := strings.CutPrefix(line, k+": "); ok {
					res.header[k] = strings.TrimSpace(v)
				}
			}
		}
	}
	return res, sc.Err()
}

// stat is the median and range of one unit over a benchmark's runs.
type stat struct {
	med, lo, hi float64
	n           int
	ok          bool
}

func (res *results) get(name, unit string) stat {
	var v []float64
	for _, r := range res.runs[name] {
		if x, ok := r[unit]; ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return stat{}
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return stat{med: med, lo: v[0], hi: v[len(v)-1], n: len(v), ok: true}
}

// children returns the sub-benchmarks of parent, in order, without the
// parent prefix.
func (res *results) children(parent string) []string {
	var out []string
	for _, n := range res.order {
		if rest, ok := strings.CutPrefix(n, parent+"/"); ok {
			out = append(out, rest)
		}
	}
	return out
}

// readVersions returns module -> version from a go.mod's require lines.
func readVersions(path string) map[string]string {
	v := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return v
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v") {
			v[f[0]] = f[1]
		}
	}
	return v
}

// machine describes the computer the report runs on, which is meant to be
// the one the benchmarks ran on.
func machine(res *results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- CPU: %s, %d logical CPUs (GOMAXPROCS %s in the runs)", res.header["cpu"], runtime.NumCPU(), res.procs)
	if m, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(m), "\n") {
			if v, ok := strings.CutPrefix(l, "MemTotal:"); ok {
				kb, _ := strconv.ParseFloat(strings.Fields(v)[0], 64)
				fmt.Fprintf(&b, ", %.0f GiB RAM", kb/(1<<20))
			}
		}
	}
	b.WriteString("\n")
	osr, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	fmt.Fprintf(&b, "- %s/%s, kernel %s, %s\n", res.header["goos"], res.header["goarch"], strings.TrimSpace(string(osr)), runtime.Version())
	return b.String()
}

func today() string { return time.Now().UTC().Format("2006-01-02") }
