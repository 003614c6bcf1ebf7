package theme

import "testing"

func TestDarkFromEnv(t *testing.T) {
	cases := map[string]bool{"": true, "15;0": true, "0;15": false, "0;7": false, "12;8": true, "0;default;15": false}
	for in, want := range cases {
		if got := DarkFromEnv(in); got != want {
			t.Errorf("DarkFromEnv(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestLightAndDarkDiffer(t *testing.T) {
	d, l := New(true), New(false)
	if d.Credit.GetForeground() == l.Credit.GetForeground() {
		t.Fatal("light and dark themes use the same credit colour")
	}
}
