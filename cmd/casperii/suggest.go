package main

import "strings"

// suggest returns the candidate closest to word, for a "did you mean"
// hint, or "" when none is close. Names are compared ignoring case, '_'
// and '-' (CSP_NODESIZE is CSP_NODE_SIZE), then by edit distance with
// transpositions, allowing about one edit per three characters (at least
// two).
func suggest(word string, candidates []string) string {
	w := normalize(word)
	if w == "" {
		return ""
	}
	best, bestD, tie := "", 1<<30, false
	for _, c := range candidates {
		nc := normalize(c)
		d := editDistance(w, nc)
		if len(w) >= 4 && len(nc) > len(w) && strings.HasPrefix(nc, w) {
			d = min(d, 1) // a prefix: "wildcard" for wildcard_used
		}
		switch {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD && c != best:
			tie = true
		}
	}
	limit := max(2, len(w)/3)
	if best == "" || bestD > limit || tie {
		return ""
	}
	return best
}

func normalize(s string) string {
	s = strings.ToUpper(s)
	return strings.NewReplacer("_", "", "-", "").Replace(s)
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent characters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
