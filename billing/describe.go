package billing

import "strings"

// DescriptionBeside is a contract's description as a row shows it beside
// the contract's id: without a lead that repeats it — up to two words,
// then id or the number that ends source ("Instance 9007485: ", "Serverless
// endpoint 3671 "), then the punctuation after it; what is left wholly in
// parentheses loses them ("(whisper-asr)" is "whisper-asr"). A description
// that only mentions the id further on is kept whole. The dashboard's
// Charges rows and the charges command's text table show it so, and its
// room goes to what the contract ran on ("1x A100 SXM4"); CSV, JSON and a
// details pane keep the server's text whole.
func DescriptionBeside(desc, id, source string) string {
	for _, c := range []string{id, source[strings.LastIndexByte(source, '-')+1:]} {
		if c == "" {
			continue
		}
		i := strings.Index(desc, c)
		if i < 0 {
			continue
		}
		if lead := desc[:i]; lead != "" && (!strings.HasSuffix(lead, " ") || strings.Count(lead, " ") > 2 || len(lead) > 32) {
			continue
		}
		rest := desc[i+len(c):]
		if rest != "" && !strings.ContainsAny(rest[:1], " :,;-–—·") {
			continue // 9007485 in 90074851
		}
		rest = strings.TrimLeft(rest, " :,;-–—·")
		if inner, ok := strings.CutPrefix(rest, "("); ok && strings.Index(inner, ")") == len(inner)-1 {
			rest = inner[:len(inner)-1]
		}
		return rest
	}
	return desc
}
