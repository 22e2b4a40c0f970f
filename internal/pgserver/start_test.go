//go:build unix

package pgserver

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestInterruptedDuringInitdb: a Ctrl-C (the context cancelled) while
// initdb runs ends Find with an error that says "interrupted" and matches
// context.Canceled, without initdb's log or the list of four ways, both
// when the embedded server is forced and when it is the last step.
func TestInterruptedDuringInitdb(t *testing.T) {
	bins := binaries(t)
	for name, e := range map[string]map[string]string{
		"forced":    {EnvMode: "embedded", EnvBinaries: bins},
		"last step": {EnvBinaries: bins},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := Find(ctx, Options{
				ComposeDSN: deadDSN,
				Getenv:     env(e),
				Embedded: EmbeddedOptions{started: func(name string, pid int) {
					if name == "initdb" {
						cancel()
					}
				}},
			})
			if err == nil {
				s.Close()
				t.Fatal("started although interrupted during initdb")
			}
			t.Logf("%v", err)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
				t.Errorf("err = %v, want it to say interrupted and match context.Canceled", err)
			}
			for _, unwanted := range []string{"Provide one of", "initdb:", "\n"} {
				if strings.Contains(err.Error(), unwanted) {
					t.Errorf("error contains %q", unwanted)
				}
			}
		})
	}
}

// TestPortTakenBeforeBind: when another process takes the chosen port
// between its choice and the postmaster's bind, StartEmbedded chooses
// another and starts there.
func TestPortTakenBeforeBind(t *testing.T) {
	t.Parallel()
	var taken []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	o := EmbeddedOptions{Binaries: binaries(t), Getenv: env(nil), portChosen: func(port int) {
		if len(taken) < 2 { // the first two choices are taken
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				t.Errorf("take port %d: %v", port, err)
				return
			}
			listeners = append(listeners, l)
			taken = append(taken, port)
		}
	}}
	s, err := StartEmbedded(context.Background(), o)
	if err != nil {
		t.Fatalf("ports %v taken before the bind: %v", taken, err)
	}
	defer s.Close()
	t.Logf("ports taken: %v; %s", taken, s.Description)
	for _, p := range taken {
		if strings.Contains(s.DSN, "127.0.0.1:"+strconv.Itoa(p)+"/") {
			t.Errorf("the server claims the taken port %d: %s", p, s.DSN)
		}
	}
	if err := Ping(context.Background(), s.DSN, 5*time.Second); err != nil {
		t.Error(err)
	}
}

// TestSettings: EmbeddedOptions.Settings reach the server (and win over
// pgid's own), and a setting that is not name=value is refused before
// anything starts.
func TestSettings(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := StartEmbedded(ctx, EmbeddedOptions{Binaries: binaries(t), Getenv: env(nil), Settings: []string{"wal_level"}}); err == nil || !strings.Contains(err.Error(), `"wal_level" is not name=value`) {
		t.Fatalf("Settings [wal_level]: %v, want refused naming it", err)
	}
	s, err := StartEmbedded(ctx, EmbeddedOptions{Binaries: binaries(t), Getenv: env(nil),
		Settings: []string{"wal_level=logical", "synchronous_commit=on"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for name, want := range map[string]string{"wal_level": "logical", "synchronous_commit": "on", "fsync": "off"} {
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
