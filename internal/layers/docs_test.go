package layers

// The documents a reader follows from the README: it stays a front door, and
// every link between them, and every section a link names, is there. They
// are checked here, beside the test that ARCHITECTURE.md names every
// package, because both keep the repository's pages true to it.

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMostLines is how long the README may grow: a few screens, so that a
// newcomer finds the first run and signing in without scrolling through the
// reference, which lives in docs/.
const readmeMostLines = 200

// The README is a front door: short, the two commands of a first run as a
// newcomer types them, and the way into docs/.
func TestReadmeIsAFrontDoor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > readmeMostLines {
		t.Errorf("README.md is %d lines, more than %d: move reference text to a page of docs/ and link it", n, readmeMostLines)
	}
	// The first go run compiles for about 90 s in silence: the README says so,
	// or a newcomer takes it for a hang.
	for _, want := range []string{"go run . --demo", "go test ./...", "90 s", "(docs/index.md)", "(docs/sign-in.md)"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

// docPages are the repository's Markdown pages, relative to root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "ARCHITECTURE.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range more {
		rel, _ := filepath.Rel(root, p)
		pages = append(pages, filepath.ToSlash(rel))
	}
	if len(more) == 0 {
		t.Fatal("docs/ holds no page")
	}
	return pages
}

// linkRe finds the target of a Markdown link: [text](target).
var linkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README, ARCHITECTURE.md and docs/ leads to a
// file that is there, and a link to a section (#anchor) to a heading of
// that page — what moving text between pages breaks without a word.
func TestDocLinksLeadSomewhere(t *testing.T) {
	pages := docPages(t)
	anchors := map[string]map[string]bool{}
	for _, p := range pages {
		anchors[p] = headingAnchors(t, p)
	}
	docsLinked := map[string]bool{}
	for _, p := range pages {
		for _, line := range proseLines(t, p) {
			for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := p
				if file != "" {
					dest = filepath.ToSlash(filepath.Join(filepath.Dir(p), file))
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						t.Errorf("%s links to %s, which is not there", p, target)
						continue
					}
					docsLinked[dest] = true
				}
				if anchor == "" {
					continue
				}
				if a, ok := anchors[dest]; !ok {
					t.Errorf("%s links to %s: a section of a page that is not checked", p, target)
				} else if !a[anchor] {
					t.Errorf("%s links to %s, but %s has no heading whose anchor is #%s", p, target, dest, anchor)
				}
			}
		}
	}
	// docs/index.md lists every page of docs/, so none is out of reach.
	for _, p := range pages {
		if strings.HasPrefix(p, "docs/") && p != "docs/index.md" && !linkedFrom(t, "docs/index.md", p) {
			t.Errorf("docs/index.md does not link to %s", p)
		}
	}
}

// linkedFrom reports whether page from links to the page to.
func linkedFrom(t *testing.T, from, to string) bool {
	for _, line := range proseLines(t, from) {
		for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
			file, _, _ := strings.Cut(m[1], "#")
			if file != "" && filepath.ToSlash(filepath.Join(filepath.Dir(from), file)) == to {
				return true
			}
		}
	}
	return false
}

// proseLines are the lines of a page outside its code blocks.
func proseLines(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	fence := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if !fence {
			lines = append(lines, l)
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, spaces to hyphens, punctuation but hyphens and underscores dropped,
// a repeated one numbered (-1, -2 …).
func headingAnchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(t, page) {
		text, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if !ok || !strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
