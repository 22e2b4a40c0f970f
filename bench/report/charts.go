package main

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// chart is one PNG written into docs/bench.
type chart struct {
	file, title, section string
}

// series is one set of bars: a value per kind.
type series struct {
	label       string
	unit, name  string  // benchmark unit; name is the benchmark prefix
	scale       float64 // multiplies the value
	color       color.RGBA
	skipMissing bool
}

var palette = []color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

// drawCharts draws the PGKeys charts, if the output has PGKeys results.
func drawCharts(res *results, dir string) ([]chart, error) {
	ks := res.children("BenchmarkPGKeys")
	if len(ks) == 0 {
		return nil, nil
	}
	// The tables' order, measured kinds only.
	var order []string
	for _, k := range kinds(res) {
		if contains(ks, k) {
			order = append(order, k)
		}
	}
	rows := res.params["PGKeys"]
	specs := []struct {
		chart
		xlabel string
		series []series
	}{
		{chart{"pg-size-wal.png", "Primary key index size and WAL per key kind", "pg"}, "MiB (PGKeys " + rows + ")", []series{
			{label: "primary key index, N rows", unit: "index-MiB", scale: 1},
			{label: "WAL for N/10 more rows after a CHECKPOINT", unit: "wal-MiB", scale: 1},
			{label: "created_at column + its index", unit: "createdat-MiB", scale: 1},
		}},
		{chart{"pg-throughput.png", "Load and concurrent-insert throughput per key kind", "pg"}, "thousand rows/s", []series{
			{label: "load: one CopyFrom", unit: "load-rows/s", scale: 1e-3},
			{label: "8 clients, 100-row INSERTs", unit: "ins-rows/s", scale: 1e-3},
		}},
		{chart{"pg-insert-latency.png", "Concurrent-insert statement latency per key kind", "pg"}, "ms per 100-row INSERT (8 clients)", []series{
			{label: "p50", unit: "ins-p50-ms", scale: 1},
			{label: "p99", unit: "ins-p99-ms", scale: 1},
		}},
		{chart{"pg-window.png", "One-hour window query latency per key kind", "pg"}, "ms, median of 20 windows (client, all rows read)", []series{
			{label: "by id bounds on the primary key", unit: "win-id-ms", scale: 1},
			{label: "by created_at on its index", unit: "win-ts-ms", scale: 1},
		}},
		{chart{"pg-window-buffers.png", "One-hour window: shared buffers touched per key kind", "pg"}, "buffers (EXPLAIN ANALYZE, BUFFERS), median", []series{
			{label: "by id bounds on the primary key", unit: "win-id-buffers", scale: 1},
			{label: "by created_at on its index", unit: "win-ts-buffers", scale: 1},
		}},
	}
	var out []chart
	for _, s := range specs {
		if err := barChart(res, order, s.title, s.xlabel, s.series, filepath.Join(dir, s.file)); err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		out = append(out, s.chart)
	}
	return out, nil
}

// barChart draws horizontal grouped bars, one group per kind (top to bottom
// in order), one bar per series.
func barChart(res *results, order []string, title, xlabel string, ss []series, file string) error {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = xlabel
	p.X.Min = 0
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())

	// Bars are drawn bottom-up: reverse so the first kind is on top.
	rev := slices.Clone(order)
	slices.Reverse(rev)
	n := len(ss)
	barW := vg.Points(float64(150/len(order)) / float64(n))
	barW = max(min(barW, vg.Points(14)), vg.Points(5))
	for i, s := range ss {
		vals := make(plotter.Values, len(rev))
		for j, k := range rev {
			vals[j] = res.get("BenchmarkPGKeys/"+k, s.unit).med * s.scale
		}
		bars, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return err
		}
		bars.Horizontal = true
		bars.LineStyle.Width = 0
		bars.Color = palette[i%len(palette)]
		// Series top to bottom within a group, in legend order.
		bars.Offset = vg.Length(float64(n-1)/2-float64(i)) * barW
		p.Add(bars)
		p.Legend.Add(s.label, bars)
	}
	p.NominalY(rev...)
	// Room above the first group for the legend.
	p.Y.Max = float64(len(rev)-1) + 0.6 + 0.28*float64(n)
	p.X.Max *= 1.05
	return p.Save(9*vg.Inch, vg.Length(1.6+0.55*float64(len(order)))*vg.Inch, file)
}
