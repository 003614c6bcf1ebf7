package notifications

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ui/shared"
)

// TestTopBottomAndFind: g and G go to the first and last row, as on every
// list, and / finds a switch: the cursor goes to the first row holding the
// text, ↓/↑ to the next and previous, enter stays there, esc goes back.
func TestTopBottomAndFind(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	s.press("G")
	if s.cursor != s.rowCount()-1 {
		t.Fatalf("G: cursor %d of %d rows", s.cursor, s.rowCount())
	}
	s.press("g")
	if s.cursor != 0 {
		t.Fatalf("g: cursor %d", s.cursor)
	}

	s.press("/")
	if !s.Capturing() || !strings.Contains(view(s), "find: /") {
		t.Fatalf("/ opens no find field:\n%s", view(s))
	}
	if h := shared.Hint(s.Help().ShortHelp()...); !strings.Contains(h, "enter stay there · esc go back") {
		t.Errorf("find help %q", h)
	}
	s.typeText("q") // typed, not quit
	s.press("backspace")
	s.typeText("outbid")
	if l := cursorLine(s); !strings.Contains(l, "Instance outbid by email") {
		t.Fatalf("typing outbid: cursor on %q", l)
	}
	s.press("down")
	if l := cursorLine(s); !strings.Contains(l, "Instance outbid by webhooks") {
		t.Fatalf("↓: cursor on %q", l)
	}
	s.press("enter")
	if s.Capturing() || !strings.Contains(cursorLine(s), "Instance outbid by webhooks") {
		t.Fatalf("enter: capturing %v, cursor on %q", s.Capturing(), cursorLine(s))
	}

	s.press("/") // opens on "outbid", selected: typing replaces it
	s.typeText("zzz")
	mustSay(t, s, shared.StatusInfo, "no switch holds “zzz”")
	s.press("esc")
	if s.Capturing() || !strings.Contains(cursorLine(s), "Instance outbid by webhooks") {
		t.Fatalf("esc: capturing %v, cursor on %q", s.Capturing(), cursorLine(s))
	}
}
