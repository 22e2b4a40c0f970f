package partition

import (
	"errors"
	"testing"
	"time"
)

func TestParseSpan(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Span
		str  string
	}{
		{"day", Day, "day"},
		{"Daily", Day, "day"},
		{"week", Week, "week"},
		{"month", Month, "month"},
		{"year", Year, "year"},
		{"hour", Hour, "1h0m0s"},
		{"6h", Span{Duration: 6 * time.Hour}, "6h0m0s"},
		{"90m", Span{Duration: 90 * time.Minute}, "1h30m0s"},
		{"90d", Span{Duration: 90 * 24 * time.Hour}, "90d"},
		{"14d", Span{Duration: 14 * 24 * time.Hour}, "2w"},
		{"2w", Span{Duration: 14 * 24 * time.Hour}, "2w"},
		{"3months", Span{Months: 3}, "3months"},
		{"3 months", Span{Months: 3}, "3months"},
		{"3mo", Span{Months: 3}, "3months"},
		{"1y", Year, "year"},
		{"2y", Span{Months: 24}, "24months"},
	} {
		got, err := ParseSpan(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", c.in, got, err, c.want)
			continue
		}
		if got.String() != c.str {
			t.Errorf("ParseSpan(%q).String() = %q, want %q", c.in, got.String(), c.str)
		}
		back, err := ParseSpan(got.String())
		if err != nil || back != got {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", got.String(), back, err, got)
		}
	}
	for _, bad := range []string{"", "0", "-1d", "0d", "fortnight", "1.5s", "500ms", "d", "-6h"} {
		if sp, err := ParseSpan(bad); !errors.Is(err, ErrPlan) {
			t.Errorf("ParseSpan(%q) = %v, %v; want ErrPlan", bad, sp, err)
		}
	}
}

func TestParseKindRetire(t *testing.T) {
	for _, k := range []Kind{AnyKind, ULID, ObjectID} {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseKind("uuid"); !errors.Is(err, ErrPlan) {
		t.Errorf("ParseKind(uuid): %v", err)
	}
	for r := Drop; r <= DetachConcurrentlyThenDrop; r++ {
		if got, err := ParseRetire(r.String()); err != nil || got != r {
			t.Errorf("ParseRetire(%q) = %v, %v", r.String(), got, err)
		}
	}
	if _, err := ParseRetire("delete"); !errors.Is(err, ErrPlan) {
		t.Errorf("ParseRetire(delete): %v", err)
	}
}

func TestPlanCheck(t *testing.T) {
	ok := Plan{Parent: "events", Every: Day, Ahead: 3, Retain: Span{Duration: 30 * 24 * time.Hour}}
	if err := ok.check(); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Plan{
		"no parent":      {Every: Day},
		"no width":       {Parent: "events"},
		"mixed width":    {Parent: "events", Every: Span{Months: 1, Duration: time.Hour}},
		"sub-second":     {Parent: "events", Every: Span{Duration: 1500 * time.Millisecond}},
		"negative ahead": {Parent: "events", Every: Day, Ahead: -1},
		"huge ahead":     {Parent: "events", Every: Day, Ahead: 10001},
		"bad retention":  {Parent: "events", Every: Day, Retain: Span{Duration: -time.Hour}},
		"bad retire":     {Parent: "events", Every: Day, Retire: 9},
		"bad kind":       {Parent: "events", Every: Day, Kind: 7},
	} {
		if err := p.check(); !errors.Is(err, ErrPlan) {
			t.Errorf("%s: %v, want ErrPlan", name, err)
		}
	}
}

func TestSpanInterval(t *testing.T) {
	iv := Span{Duration: 36 * time.Hour}.interval()
	if iv.Months != 0 || iv.Days != 0 || iv.Microseconds != 36*3600e6 || !iv.Valid {
		t.Errorf("36h as interval: %+v", iv)
	}
	iv = Span{Months: 3}.interval()
	if iv.Months != 3 || iv.Days != 0 || iv.Microseconds != 0 {
		t.Errorf("3 months as interval: %+v", iv)
	}
}
