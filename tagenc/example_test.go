package tagenc_test

import (
	"fmt"

	"github.com/casperii/casperii/tagenc"
)

func Example() {
	// MPICH's MPI_TAG_UB, two users per ghost.
	l, err := tagenc.New(1<<28-1, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l)

	// User 1 of its ghost sends tag 7 to user 0 of its ghost, context 5.
	tag, err := l.Encode(tagenc.Fields{Flags: tagenc.FlagSync, Ctx: 5, Src: 1, Dst: 0, Tag: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := l.Decode(tag)
	fmt.Printf("%d %+v %v\n", tag, f, err)

	_, err = l.Encode(tagenc.Fields{Tag: l.ExposedTagUB() + 1})
	fmt.Println(err)

	_, err = tagenc.New(1<<28-1, 64)
	fmt.Println(err)
	// Output:
	// tag layout: 28 bits = flags 2 | ctx 6 | src 1 | dst 1 | user 18 (exposed MPI_TAG_UB 262143)
	// 72876039 {Flags:1 Ctx:5 Src:1 Dst:0 Tag:7} <nil>
	// tagenc: user tag 262144 out of range [0, 262143]
	// tagenc: tag layout impossible: MPI_TAG_UB 268435455 gives 28 tag bits and 64 users per ghost need 29 (2 flag + 2x6 offset + 15 user tag), so the exposed MPI_TAG_UB would fall below 32767; use fewer users per ghost (raise CSP_NG) or wildcard_used=any_tag_same_tag, which needs no tag bits
}
