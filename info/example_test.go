package info_test

import (
	"fmt"

	"github.com/casperii/casperii/info"
)

func Example() {
	m, err := info.ParseString("wildcard_used=anytag_notag; shmbuf_regist=true; cb_nodes=4")
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := info.Parse(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h)
	fmt.Println(h.Algorithm(info.Policy{}))

	// A communicator duplicated from it, setting only async_config.
	child, _ := info.Parse(info.Map{"async_config": "off"})
	child = child.Inherit(h)
	fmt.Println(child, child.Algorithm(info.Policy{}))

	_, err = info.Parse(info.Map{"wildcard_used": "anysource"})
	fmt.Println(err)
	// Output:
	// wildcard_used=any_tag_same_tag;shmbuf_regist=true
	// duplication
	// wildcard_used=any_tag_same_tag;shmbuf_regist=true;async_config=off off
	// info: wildcard_used="anysource" is not valid; accepted: any_src, any_tag_same_tag, any_src|any_tag_same_tag, none (Casper spellings anysrc, anytag_notag also accepted)
}
