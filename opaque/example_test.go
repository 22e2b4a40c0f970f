package opaque_test

import (
	"encoding/json"
	"fmt"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/ulidtype"
)

func Example() {
	// In a service: read the keys from a file or the environment
	// (opaque.ParseKeys), never from source code.
	codec, err := opaque.NewCodec(opaque.NewKey(0, []byte("example key: 32 bytes, not real!")))
	if err != nil {
		panic(err)
	}
	id := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	code := codec.ObjectIDCode(id)
	back, _ := codec.OpenObjectID(code)
	fmt.Println(len(code), back == id)

	// The next ObjectId shares nothing visible with it.
	next := id
	next[11]++
	fmt.Println(codec.ObjectIDCode(next)[:4] != code[:4])
	// Output:
	// 16 true
	// true
}

func ExampleCodec_PublicULID() {
	codec, _ := opaque.NewCodec(opaque.NewKey(1, []byte("example key, 16B")))
	type order struct {
		ID opaque.PublicULID `json:"id"`
	}
	id := ulidtype.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	b, _ := json.Marshal(order{ID: codec.PublicULID(id)})

	in := order{ID: codec.PublicULID(ulidtype.ULID{})} // bind the codec, then fill
	_ = json.Unmarshal(b, &in)
	fmt.Println(len(b), in.ID.ID == id)
	// Output: 35 true
}
