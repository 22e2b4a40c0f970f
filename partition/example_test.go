package partition_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/partition"
)

func ExampleParseSpan() {
	for _, s := range []string{"day", "week", "month", "6h", "90d", "3months"} {
		sp, err := partition.ParseSpan(s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d months + %s\n", s, sp.Months, sp.Duration)
	}
	// Output:
	// day: 0 months + 24h0m0s
	// week: 0 months + 168h0m0s
	// month: 1 months + 0s
	// 6h: 0 months + 6h0m0s
	// 90d: 0 months + 2160h0m0s
	// 3months: 3 months + 0s
}

// Keep daily partitions of events three days ahead and drop those older
// than 30 days; run it from a cron job or at start-up.
func ExampleEnsure() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)

	rep, err := partition.Ensure(ctx, conn, partition.Plan{
		Parent: "events",
		Every:  partition.Day,
		Ahead:  3,
		Retain: partition.Span{Duration: 30 * 24 * time.Hour},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range rep.Created {
		fmt.Println("created", p.Name, p.Lower, p.Upper)
	}
	for _, p := range rep.Dropped {
		fmt.Println("dropped", p.Name)
	}
}

func ExampleList() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)

	parts, err := partition.List(ctx, conn, "events")
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range parts {
		fmt.Printf("%-24s %s  %s  ~%d rows\n", p.Name, p.Lower.Format(time.RFC3339), p.Upper.Format(time.RFC3339), p.RowEstimate)
	}
}
