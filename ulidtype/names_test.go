package ulidtype

import (
	"fmt"
	"reflect"
	"testing"
)

// TestPeerNames holds ULID to the rule for names peers also use: the same
// name returns what oklog/ulid and google/uuid return, or is not used.
// oklog/ulid's Timestamp is a time.Time; Time is a uint64 there and a
// uuid.Time in google/uuid, so ULID has no Time.
func TestPeerNames(t *testing.T) {
	u := MustParse("01ARYZ6S41TSV4RRFFQ69G5FAV")
	if got := fmt.Sprint(u.Timestamp()); got != "2016-07-30 22:36:16.385 +0000 UTC" {
		t.Errorf("Timestamp() prints %s, want the time as oklog/ulid's does", got)
	}
	if got := u.UnixMilli(); got != 1469918176385 {
		t.Errorf("UnixMilli() = %d", got)
	}
	for _, name := range []string{"Time", "Timestamp", "UnixMilli", "String"} {
		m, ok := reflect.TypeFor[ULID]().MethodByName(name)
		if name == "Time" {
			if ok {
				t.Errorf("ULID has %s %v, which oklog/ulid and google/uuid each give another meaning", name, m.Type)
			}
			continue
		}
		if !ok {
			t.Errorf("ULID has no %s", name)
		}
	}
	if got := fmt.Sprint(NullULID{ULID: u, Valid: true}); got != u.String() {
		t.Errorf("valid NullULID prints %s, want %s", got, u)
	}
	if got := fmt.Sprint(NullULID{ULID: u}); got != "NULL" {
		t.Errorf("invalid NullULID prints %s, want NULL", got)
	}
}
