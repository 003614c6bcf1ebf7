package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vastdash/vastdash"

// root is the module's folder, seen from this package's.
const root = "../.."

// packages maps every package folder of the module ("." for the root) to
// its Go files, testdata and hidden folders left out.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			pkgs[filepath.ToSlash(rel)] = append(pkgs[filepath.ToSlash(rel)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func floorOf() map[string]int {
	m := map[string]int{}
	for i, floor := range Floors {
		for _, p := range floor {
			m[p] = i
		}
	}
	return m
}

// Every import of every file goes to a package on a lower floor (a test
// may also import its own package and the Doubles); production files also
// keep out of what Forbidden names.
func TestNothingImportsUpward(t *testing.T) {
	floors := floorOf()
	fset := token.NewFileSet()
	for pkg, files := range packages(t) {
		if pkg == self {
			continue
		}
		own, ok := floors[pkg]
		if !ok {
			t.Errorf("package %s stands on no floor: add it to layers.Floors and to ARCHITECTURE.md", pkg)
			continue
		}
		for _, file := range files {
			f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != module && !strings.HasPrefix(path, module+"/") {
					continue
				}
				dep := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
				if dep == "" {
					dep = "."
				}
				rel, _ := filepath.Rel(root, file)
				test := strings.HasSuffix(file, "_test.go")
				switch at, known := floors[dep]; {
				case !known:
					t.Errorf("%s imports %s, which stands on no floor", rel, dep)
				case test && (dep == pkg || slices.Contains(Doubles, dep)):
				case at >= own:
					t.Errorf("%s (floor %d) imports %s (floor %d): only packages below may be imported", rel, own, dep, at)
				case !test && slices.Contains(Forbidden[pkg], dep):
					t.Errorf("%s imports %s, which layers.Forbidden keeps from %s", rel, dep, pkg)
				}
			}
		}
	}
}

// Every package on a floor exists, and ARCHITECTURE.md names it (as
// `path/`), so a reader finds every package there in one step.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := packages(t)
	for _, floor := range Floors {
		for _, p := range floor {
			if _, ok := pkgs[p]; !ok {
				t.Errorf("layers.Floors names %s, which has no Go files", p)
			}
			if p != "." && !strings.Contains(string(doc), "`"+p+"/`") {
				t.Errorf("ARCHITECTURE.md does not name `%s/`", p)
			}
		}
	}
}
