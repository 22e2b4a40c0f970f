// Package sqlstate is the one table of the SQLSTATEs pgid's SQL functions
// raise of their own (class PG, "pgid"): packages partition and tail map
// them to their sentinels from here, go generate ./migrations writes the
// list at the head of each functions/*.sql file that raises them, and a
// test of package migrations checks that the files raise exactly these,
// each where the table says, and that the code and documentation of the
// repository name no other SQLSTATE than these and the PostgreSQL ones
// pgid relies on.
package sqlstate

// The SQLSTATEs of functions/05_partitions.sql.
const (
	NotPartitioned = "PGI01"
	NotRangeByID   = "PGI02"
	Kind           = "PGI03"
	DefaultHasRows = "PGI04"
	Overlap        = "PGI05"
	Plan           = "PGI06"
	Kept           = "PGI07"
	DefaultRows    = "PGI08"
	PastEnd        = "PGI09"
)

// The SQLSTATEs of functions/06_tail.sql.
const (
	TooOld     = "PGI20"
	NotEnabled = "PGI21"
	Setup      = "PGI22"
	Unsafe     = "PGI23"
	Citus      = "PGI24"
)

// Code is one SQLSTATE of pgid's own.
type Code struct {
	Code    string // five characters, class PG
	File    string // the functions/*.sql file that raises it
	Warning bool   // reaches the caller as a WARNING (else as an error)
	Meaning string // what it says, for the file's list
}

// Codes lists every SQLSTATE of pgid's own, in order.
var Codes = []Code{
	{NotPartitioned, "05_partitions.sql", false, "the parent is not a partitioned table"},
	{NotRangeByID, "05_partitions.sql", false, "the parent is not partitioned BY RANGE on one column"},
	{Kind, "05_partitions.sql", false, "the key column is not uuid / bytea (or a domain over them), or not the key kind asked for"},
	{DefaultHasRows, "05_partitions.sql", false, "the DEFAULT partition holds rows in a range about to be created"},
	{Overlap, "05_partitions.sql", false, "a range about to be created overlaps an existing partition with other bounds"},
	{Plan, "05_partitions.sql", false, "an invalid argument (width, ahead, retain, retire, part)"},
	{Kept, "05_partitions.sql", true, "an expired partition kept (with the reason)"},
	{DefaultRows, "05_partitions.sql", true, "rows in the DEFAULT partition"},
	{PastEnd, "05_partitions.sql", true, "partitions past the end of the ID space"},
	{TooOld, "06_tail.sql", false, "an id older than the table's tail lead allows (the trigger's refusal)"},
	{NotEnabled, "06_tail.sql", false, "the table is not set up for tailing"},
	{Setup, "06_tail.sql", false, "the table cannot be set up for tailing (no id column, its type, the lead)"},
	{Unsafe, "06_tail.sql", false, "the table's triggers no longer check every row"},
	{Citus, "06_tail.sql", false, "the table is a Citus distributed table, which cannot be tailed"},
}
