package shared

// FirstFit returns the first of texts (longest wording first) that fits in
// w cells, else the last cut to w: a narrow terminal then loses words
// before it cuts an amount in half ("threshold: $…").
func FirstFit(w int, texts ...string) string {
	for _, t := range texts {
		if Width(t) <= w {
			return t
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return Truncate(texts[len(texts)-1], w)
}
