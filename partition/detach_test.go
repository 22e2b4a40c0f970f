package partition

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The marker reads back as written, and nothing else reads as one.
func TestDetachMarker(t *testing.T) {
	prev := "it's the 19th\nkept for audit"
	lo := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC)
	m := detachMarker{Parent: `app."Events"`, ParentOID: 16384, Table: `app."Events_p20261119"`, TableOID: 16999,
		Bound: "FOR VALUES FROM ('01a1f11a-6000-0000-0000-000000000000') TO ('01a1f640-bc00-0000-0000-000000000000')",
		Lower: &lo, Drop: true, Previous: &prev, Started: lo}
	text, err := m.text()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, markerHead+` from app."Events", then dropping it;`) {
		t.Errorf("marker %q", text)
	}
	got, ok := parseMarker(text)
	if !ok || got.TableOID != m.TableOID || got.Bound != m.Bound || got.Previous == nil || *got.Previous != prev ||
		!got.Lower.Equal(lo) || got.Upper != nil || !got.Drop {
		t.Errorf("parseMarker(text) = %+v, %v", got, ok)
	}
	for _, bad := range []string{"", "pgid: detaching concurrently", markerHead + " x\n{", markerHead + " x\n{}",
		"a comment\n" + strings.SplitN(text, "\n", 2)[1], markerHead + ` x` + "\n" + `{"parent_oid":1}`} {
		if _, ok := parseMarker(bad); ok {
			t.Errorf("parseMarker(%q) read a marker", bad)
		}
	}
}

// A marked table is finished only if it is the table the marker was
// written for, owned as the parent is, with the marker's bounds.
func TestDetachRefusal(t *testing.T) {
	bound := "FOR VALUES FROM ('\\x6a3c0000') TO ('\\x6a3d5180')"
	m := detachMarker{Parent: "ev", ParentOID: 1, Table: "public.ev_p1", TableOID: 2, Bound: bound}
	check := "CHECK (((id IS NOT NULL) AND ((id)::bytea >= '\\x6a3c0000'::bytea) AND ((id)::bytea < '\\x6a3d5180'::bytea)))"
	ok := markedTable{oid: 2, name: "public.ev_p1", relkind: "r", ownerOK: true, checks: []string{"PRIMARY KEY (id)", check}}
	if why := ok.refusal(m); why != "" {
		t.Errorf("a genuine detached table refused: %s", why)
	}
	attached := ok
	attached.attached, attached.bound, attached.checks = true, &bound, nil
	if why := attached.refusal(m); why != "" {
		t.Errorf("a genuine pending partition refused: %s", why)
	}
	for name, c := range map[string]struct {
		edit func(*markedTable)
		want string
	}{
		"another table":       {func(x *markedTable) { x.oid = 3 }, "OID 2, not for this one (OID 3)"},
		"renamed":             {func(x *markedTable) { x.name = "public.keep_me" }, "renamed"},
		"a view":              {func(x *markedTable) { x.relkind = "v" }, "not a table"},
		"another owner":       {func(x *markedTable) { x.ownerOK, x.owner = false, "mallory" }, "owned by mallory"},
		"another parent":      {func(x *markedTable) { x.otherParent = true }, "another table"},
		"no CHECK":            {func(x *markedTable) { x.checks = []string{"PRIMARY KEY (id)"} }, "no CHECK constraint"},
		"a CHECK of another":  {func(x *markedTable) { x.checks = []string{strings.ReplaceAll(check, "6a3d5180", "6a3d5181")} }, "no CHECK"},
		"other bounds":        {func(x *markedTable) { b := "DEFAULT"; x.attached, x.bound = true, &b }, "not those the marker records"},
		"attached, no bounds": {func(x *markedTable) { x.attached, x.bound = true, nil }, "not those the marker records"},
	} {
		x := ok
		c.edit(&x)
		if why := x.refusal(m); !strings.Contains(why, c.want) {
			t.Errorf("%s: refusal %q, want it to say %q", name, why, c.want)
		}
	}
}

// The end of the IDs names the kind, its bits and its last time.
func TestRangeEnd(t *testing.T) {
	for _, c := range []struct {
		last time.Time
		want string
	}{
		{time.Unix(1<<32-1, 0), "ObjectIds hold 32-bit Unix seconds and end at 2106-02-07T06:28:15Z"},
		{time.UnixMilli(1<<48 - 1), "ULIDs hold 48-bit Unix milliseconds and end at 10889-08-02T05:31:50.655Z"},
	} {
		err := rangeEnd(Plan{Parent: "ev"}, &c.last)
		if !errors.Is(err, ErrRangeEnd) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), " ev ") {
			t.Errorf("rangeEnd(%s) = %v; want ErrRangeEnd saying %q", c.last, err, c.want)
		}
	}
}
