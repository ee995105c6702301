package info

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAlgorithmTable(t *testing.T) {
	tests := []struct {
		hints         string
		strict, relax Algorithm // with AnySrcOffload false, true
	}{
		{"", NoOffload, GhostMatch},
		{"wildcard_used=any_src", NoOffload, GhostMatch},
		{"wildcard_used=anysrc", NoOffload, GhostMatch},
		{"wildcard_used=none", TagEncoding, TagEncoding},
		{"wildcard_used=any_tag_same_tag", Duplication, Duplication},
		{"wildcard_used=anytag_notag", Duplication, Duplication},
		{"wildcard_used=any_src|any_tag_same_tag", DuplicationSrc, DuplicationSrc},
		{"wildcard_used=any_tag_same_tag,any_src", DuplicationSrc, DuplicationSrc},

		// async_config=off wins over everything; on changes nothing.
		{"async_config=off", NoOffload, NoOffload},
		{"async_config=off;wildcard_used=none", NoOffload, NoOffload},
		{"async_config=off;wildcard_used=any_tag_same_tag", NoOffload, NoOffload},
		{"async_config=off;wildcard_used=any_src|any_tag_same_tag", NoOffload, NoOffload},
		{"async_config=on", NoOffload, GhostMatch},
		{"async_config=on;wildcard_used=none", TagEncoding, TagEncoding},

		// The other keys do not take part.
		{"shmbuf_regist=true", NoOffload, GhostMatch},
		{"shmbuf_regist=true;wildcard_used=none;datatype_used=derived;offload_min_msgsz=1000000", TagEncoding, TagEncoding},
	}
	for _, tt := range tests {
		h := mustParse(t, tt.hints)
		assert.Equal(t, tt.strict, h.Algorithm(Policy{}), "%q", tt.hints)
		assert.Equal(t, tt.relax, h.Algorithm(Policy{AnySrcOffload: true}), "%q with AnySrcOffload", tt.hints)
	}
}

// TestAlgorithmRespectsPromise: every algorithm chosen supports all the
// wildcards the hints allow.
func TestAlgorithmRespectsPromise(t *testing.T) {
	supports := map[Algorithm]struct{ anySource, anyTag bool }{
		NoOffload:      {true, true},
		TagEncoding:    {false, false},
		Duplication:    {false, true},
		DuplicationSrc: {true, true},
		GhostMatch:     {true, true},
	}
	for _, s := range []string{"", "wildcard_used=none", "wildcard_used=any_src", "wildcard_used=any_tag_same_tag", "wildcard_used=any_src|any_tag_same_tag"} {
		h := mustParse(t, s)
		w, _ := h.Wildcard()
		for _, p := range []Policy{{}, {AnySrcOffload: true}} {
			a := h.Algorithm(p)
			sup := supports[a]
			assert.True(t, sup.anySource || !w.AllowsAnySource(), "%q: %v cannot serve MPI_ANY_SOURCE", s, a)
			assert.True(t, sup.anyTag || !w.AllowsAnyTag(), "%q: %v cannot serve MPI_ANY_TAG", s, a)
		}
	}
}

func TestAlgorithmString(t *testing.T) {
	tests := []struct {
		a         Algorithm
		name      string
		offloaded bool
	}{
		{NoOffload, "off", false},
		{TagEncoding, "tag-encoding", true},
		{Duplication, "duplication", true},
		{DuplicationSrc, "duplication-src", true},
		{GhostMatch, "ghost-match", true},
		{Algorithm(5), "Algorithm(5)", false},
		{Algorithm(255), "Algorithm(255)", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.name, tt.a.String())
		assert.Equal(t, tt.offloaded, tt.a.Offloaded(), "%v", tt.a)
	}
}

func TestDatatypesString(t *testing.T) {
	assert.Equal(t, "predefined", PredefinedTypes.String())
	assert.Equal(t, "derived", DerivedTypes.String())
	assert.Equal(t, "predefined|derived", (DerivedTypes | PredefinedTypes).String())
	assert.Equal(t, "Datatypes(0)", Datatypes(0).String())
	assert.Equal(t, "Datatypes(4)", Datatypes(4).String())
	assert.Equal(t, "Datatypes(7)", Datatypes(7).String())
}
