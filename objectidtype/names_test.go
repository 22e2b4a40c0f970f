package objectidtype

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestMongoNames holds ObjectID to the MongoDB Go driver's meaning of
// Timestamp (a time.Time) and to its Extended JSON, {"$oid": "…"}.
func TestMongoNames(t *testing.T) {
	if got := fmt.Sprint(seedBytes.Timestamp()); got != "2011-09-14 03:34:35 +0000 UTC" {
		t.Errorf("Timestamp() prints %s, want the time as the driver's does", got)
	}
	if got := seedBytes.Unix(); got != seedUnix {
		t.Errorf("Unix() = %d, want %d", got, seedUnix)
	}
	if got := fmt.Sprint(NullObjectID{ObjectID: seedBytes}); got != "NULL" {
		t.Errorf("invalid NullObjectID prints %s, want NULL", got)
	}
	if got := fmt.Sprint(NullObjectID{ObjectID: seedBytes, Valid: true}); got != seedHex {
		t.Errorf("valid NullObjectID prints %s, want %s", got, seedHex)
	}
	for _, in := range []string{
		`{"$oid":"4e7020cb7cac81af7136236b"}`,
		`{ "$oid" : "4E7020CB7CAC81AF7136236B" }`,
	} {
		var doc struct {
			ID    ObjectID     `json:"_id"`
			Null  NullObjectID `json:"null"`
			Short ShortID      `json:"short"`
		}
		data := `{"_id":` + in + `,"null":` + in + `,"short":` + in + `}`
		if err := json.Unmarshal([]byte(data), &doc); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if doc.ID != seedBytes || doc.Null != (NullObjectID{seedBytes, true}) || ObjectID(doc.Short) != seedBytes {
			t.Errorf("%s: %+v", data, doc)
		}
	}
	for _, in := range []string{
		`{"$oid":"jD0wOTOIwqZNdydH"}`, // Extended JSON is hex only
		`{"$oid":"4e7020cb7cac81af7136236"}`,
		`{"$oid":"4e7020cb7cac81af7136236g"}`,
		`{"$oid":1}`,
		`{"$oid":null}`,
		`{"$oid":"4e7020cb7cac81af7136236b","x":1}`,
		`{}`,
		`{`,
		`[]`,
	} {
		o := seedBytes
		err := o.UnmarshalJSON([]byte(in))
		if err == nil || o != seedBytes || !errors.Is(err, ErrCharacter) && !errors.Is(err, ErrLength) {
			t.Errorf("%s: %v, ID %s", in, err, o)
		}
		var n NullObjectID
		if err := n.UnmarshalJSON([]byte(in)); err == nil || n.Valid {
			t.Errorf("NullObjectID %s: %v", in, err)
		}
	}
}
