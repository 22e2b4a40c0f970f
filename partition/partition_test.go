package partition

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Every input is either read with one exact meaning or refused with
// ErrPlan and a message saying why.
func TestParseSpan(t *testing.T) {
	const d, w = 24 * time.Hour, 7 * 24 * time.Hour
	for _, c := range []struct {
		in   string
		want Span   // zero: refused
		msg  string // accepted: want.String(); refused: in the error
	}{
		{"day", Day, "day"},
		{"Daily", Day, "day"},
		{"DAY", Day, "day"},
		{"  week ", Week, "week"},
		{"weekly", Week, "week"},
		{"month", Month, "month"},
		{"Monthly", Month, "month"},
		{"year", Year, "year"},
		{"yearly", Year, "year"},
		{"hour", Hour, "1h0m0s"},
		{"hourly", Hour, "1h0m0s"},
		{"6h", Span{Duration: 6 * time.Hour}, "6h0m0s"},
		{"6 hours", Span{Duration: 6 * time.Hour}, "6h0m0s"},
		{"90m", Span{Duration: 90 * time.Minute}, "1h30m0s"},
		{"90 min", Span{Duration: 90 * time.Minute}, "1h30m0s"},
		{"1minute", Span{Duration: time.Minute}, "1m0s"},
		{"45s", Span{Duration: 45 * time.Second}, "45s"},
		{"90 seconds", Span{Duration: 90 * time.Second}, "1m30s"},
		{"1h30m", Span{Duration: 90 * time.Minute}, "1h30m0s"},
		{"1h0m0s", Hour, "1h0m0s"},
		{"1.5h", Span{Duration: 90 * time.Minute}, "1h30m0s"},
		{"2000ms", Span{Duration: 2 * time.Second}, "2s"},
		{"1d", Day, "day"},
		{"30d", Span{Duration: 30 * d}, "30d"},
		{"30 days", Span{Duration: 30 * d}, "30d"},
		{"90d", Span{Duration: 90 * d}, "90d"},
		{"14d", Span{Duration: 2 * w}, "2w"},
		{"2w", Span{Duration: 2 * w}, "2w"},
		{"2 weeks", Span{Duration: 2 * w}, "2w"},
		{"1mo", Month, "month"},
		{"3mo", Span{Months: 3}, "3months"},
		{"3 months", Span{Months: 3}, "3months"},
		{"3months", Span{Months: 3}, "3months"},
		{"1y", Year, "year"},
		{"2y", Span{Months: 24}, "24months"},
		{"2 years", Span{Months: 24}, "24months"},
		{"12000months", Span{Months: MaxSpanMonths}, "12000months"},
		{"1000y", Span{Months: MaxSpanMonths}, "12000months"},
		{"9223372036s", Span{Duration: time.Duration(MaxSpanSeconds) * time.Second}, (time.Duration(MaxSpanSeconds) * time.Second).String()},
		{"106751d", Span{Duration: 106751 * d}, "106751d"},

		{"", Span{}, "empty"},
		{"0", Span{}, "not positive"},
		{"0d", Span{}, "not positive"},
		{"-1d", Span{}, "not a count and a unit"},
		{"-6h", Span{}, "not positive"},
		{"1M", Span{}, `unknown unit "M"`},
		{"1 M", Span{}, `unknown unit "M"`},
		{"3MO", Span{}, `unknown unit "MO"`},
		{"1D", Span{}, `unknown unit "D"`},
		{"2H", Span{}, `unknown unit "H"`},
		{"3 Months", Span{}, `unknown unit "Months"`},
		{"1ms", Span{}, "not a whole number of seconds"},
		{"500ms", Span{}, "not a whole number of seconds"},
		{"1.5s", Span{}, "not a whole number of seconds"},
		{"fortnight", Span{}, "not a count and a unit"},
		{"d", Span{}, "not a count and a unit"},
		{"1q", Span{}, `unknown unit "q"`},
		{"1  day", Span{}, "not a count and a unit"},
		{"1 month 1 day", Span{}, "not a count and a unit"},
		{"12001months", Span{}, "12001 months is more than 12000 months"},
		{"1001y", Span{}, "1001 y is more than 12000 months"},
		{"4294967297months", Span{}, "4294967297 months is more than 12000 months"},
		{"99999999999999999999months", Span{}, "count 99999999999999999999 is too large"},
		{"9223372037s", Span{}, "9223372037 s is more than 9223372036 seconds"},
		{"106752d", Span{}, "106752 d is more than"},
		{"2562048h", Span{}, "2562048 h is more than"},
		{"3000000h", Span{}, "is more than"},
		{"9999999999999999999h", Span{}, "count 9999999999999999999 is too large"},
		{"1e3s", Span{}, "not a count and a unit"},
	} {
		got, err := ParseSpan(c.in)
		if c.want.IsZero() {
			if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "want hour, day") {
				t.Errorf("ParseSpan(%q) = %v, %v; want ErrPlan with %q and the accepted forms", c.in, got, err, c.msg)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", c.in, got, err, c.want)
			continue
		}
		if got.String() != c.msg {
			t.Errorf("ParseSpan(%q).String() = %q, want %q", c.in, got.String(), c.msg)
		}
		back, err := ParseSpan(got.String())
		if err != nil || back != got {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", got.String(), back, err, got)
		}
	}
}

// Any input either fails with ErrPlan or gives a valid Span that
// String writes in a form ParseSpan reads back to the same Span.
func FuzzParseSpan(f *testing.F) {
	for _, s := range []string{"day", "1M", "3 months", "90m", "1h30m", "4294967297months", "2w", "12000months", "9223372036s", "1.5h", "-1d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpan(s)
		if err != nil {
			if !errors.Is(err, ErrPlan) {
				t.Fatalf("ParseSpan(%q): %v, not ErrPlan", s, err)
			}
			return
		}
		if err := sp.check("span"); err != nil {
			t.Fatalf("ParseSpan(%q) = %v, which check refuses: %v", s, sp, err)
		}
		back, err := ParseSpan(sp.String())
		if err != nil || back != sp {
			t.Fatalf("ParseSpan(%q) = %v; String %q reads back as %v, %v", s, sp, sp.String(), back, err)
		}
	})
}

// A Span made in Go is checked before it is converted: months beyond
// MaxSpanMonths never reach the int32 of an interval.
func TestSpanCheckRange(t *testing.T) {
	for _, sp := range []Span{{Months: 4294967297}, {Months: MaxSpanMonths + 1}, {Months: -1}, {Duration: -time.Second}, {Duration: 1500 * time.Millisecond}} {
		if err := sp.check("retention"); !errors.Is(err, ErrPlan) {
			t.Errorf("check(%+v) = %v, want ErrPlan", sp, err)
		}
		p := Plan{Parent: "events", Every: Day, Retain: sp}
		if err := p.check(); !errors.Is(err, ErrPlan) {
			t.Errorf("Plan{Retain: %+v}.check() = %v, want ErrPlan", sp, err)
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
