package objectidtype_test

import (
	"encoding/json"
	"fmt"

	"github.com/pgid/pgid/objectidtype"
)

// MongoDB Extended JSON, as the MongoDB driver writes an ObjectID, is read as
// well as a plain string.
func ExampleObjectID_UnmarshalJSON() {
	var doc struct {
		ID   objectidtype.ObjectID     `json:"_id"`
		Prev objectidtype.NullObjectID `json:"prev"`
	}
	err := json.Unmarshal([]byte(`{"_id": {"$oid": "4e7020cb7cac81af7136236b"}, "prev": null}`), &doc)
	fmt.Println(doc.ID, doc.ID.Timestamp(), doc.Prev, err)
	// Output:
	// 4e7020cb7cac81af7136236b 2011-09-14 03:34:35 +0000 UTC NULL <nil>
}

// A Slice binds and scans bytea[] and pgid.objectid[] in database/sql,
// where pq.Array cannot.
func ExampleSlice() {
	v, _ := objectidtype.Slice{objectidtype.MustParse("4e7020cb7cac81af7136236b")}.Value()
	fmt.Println(v)
	var ids objectidtype.Slice
	err := ids.Scan(`{"\\x4e7020cb7cac81af7136236b"}`) // as PostgreSQL prints a bytea[]
	fmt.Println(ids, err)
	// Output:
	// {"\\x4e7020cb7cac81af7136236b"}
	// [4e7020cb7cac81af7136236b] <nil>
}
