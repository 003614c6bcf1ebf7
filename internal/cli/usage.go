package cli

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/textwrap"
)

// The help and the manual page are written by vastdash from the command
// tree, as gh writes its own: every value flag shows a placeholder (its
// choices where there are few: --output text|csv|json), a command's own
// flags come apart from the global ones, nothing ends in trailing spaces,
// and a terminal gets headings in bold and flags in colour (never with
// NO_COLOR, never in a pipe). No terminal query is made to style it.

// helpStyles are the attributes of a help page; zero styles print plain.
type helpStyles struct {
	heading, flag, dim lipgloss.Style
}

// helpOut is where a help page goes: its width and whether it is styled.
func helpOut(w io.Writer) (width int, st helpStyles) {
	width = 80
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
		width = n
	}
	if out, ok := w.(*cobraOut); ok && out.fd != ^uintptr(0) {
		if cols, _, err := term.GetSize(out.fd); err == nil && cols >= 40 {
			width = cols
		}
		// Palette colours: the terminal's theme picks the shade, light or
		// dark, so nothing needs to ask its background.
		st = helpStyles{
			heading: lipgloss.NewStyle().Bold(true),
			flag:    lipgloss.NewStyle().Foreground(lipgloss.Cyan),
			dim:     lipgloss.NewStyle().Faint(true),
		}
	}
	return min(width, 100), st
}

// placeholder is the word shown after a value flag: a backquoted word of
// its usage (pflag's convention), else its type ("on|off", "duration");
// "" for a flag that takes no value.
func placeholder(f *pflag.Flag) (word, usage string) {
	word, usage = pflag.UnquoteUsage(f)
	if f.NoOptDefVal != "" || word == "bool" {
		word = ""
	}
	return word, usage
}

// flagDefault is " (default X)" when the flag has a default worth saying.
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]", "0s":
		return ""
	}
	return " (default " + f.DefValue + ")"
}

// writeHelp writes c's help page to w.
func writeHelp(c *cobra.Command, w io.Writer) {
	mergeGlobalFlags(c.Root())
	width, st := helpOut(w)
	var b strings.Builder
	para := func(text string) {
		for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
			for _, bl := range blocksOf(p) {
				switch {
				case bl.term != "":
					// A table's row: its text wraps under itself.
					prefix := "    " + bl.term + strings.Repeat(" ", bl.pad)
					b.WriteString(strings.Join(hanging(prefix, bl.text, width), "\n") + "\n")
				case bl.verbatim:
					b.WriteString("  " + bl.text + "\n")
				default:
					b.WriteString(wrapIndent(bl.text, width, "  ") + "\n")
				}
			}
			b.WriteString("\n")
		}
	}
	heading := func(h string) { b.WriteString(st.heading.Render(h) + "\n") }
	if c.Long != "" {
		para(c.Long)
	} else {
		para(c.Short + ".")
	}
	heading("USAGE")
	use := c.CommandPath()
	if c.HasAvailableSubCommands() {
		use += " [command]"
	}
	if c.HasAvailableFlags() {
		use += " [flags]"
	}
	b.WriteString("  " + use + "\n\n")
	if c.HasAvailableSubCommands() {
		heading("COMMANDS")
		var rows [][2]string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				rows = append(rows, [2]string{sub.Name(), sub.Short})
			}
		}
		writeTwoColumns(&b, rows, width, st.flag)
	}
	own, global := helpFlags(c)
	if len(own) > 0 {
		heading("FLAGS")
		writeTwoColumns(&b, own, width, st.flag)
	}
	if len(global) > 0 {
		heading("GLOBAL FLAGS")
		writeTwoColumns(&b, global, width, st.flag)
	}
	if ex := strings.Trim(c.Example, "\n"); ex != "" {
		heading("EXAMPLES")
		for _, l := range strings.Split(ex, "\n") {
			if strings.HasPrefix(l, "#") {
				b.WriteString("  " + st.dim.Render(l) + "\n")
			} else {
				b.WriteString("  " + l + "\n")
			}
		}
		b.WriteString("\n")
	}
	if c.HasAvailableSubCommands() {
		heading("LEARN MORE")
		para(c.CommandPath() + " COMMAND --help tells more about a command; " + c.Root().Name() + " man prints the manual.")
	}
	// A failed write is seen at the flush in execute.
	_, _ = io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
}

// block is a piece of a help paragraph: prose, words to be wrapped; or a
// line the source indents by two spaces, kept as a line — a table's row
// ("  idle GPU   a running instance…": its term, the spaces after it, and
// its text, which may wrap under itself), else verbatim.
type block struct {
	text     string
	term     string
	pad      int
	verbatim bool
}

// tableRow is an indented line's term and text: the words before the
// first run of two or more spaces, and what follows it.
// Compiled when first needed: only the help and the manual use it.
var tableRow = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^  (\S.*?)(\s{2,})(\S.*)$`)
})

// blocksOf splits a paragraph of a command's long help into its blocks:
// lines indented by two spaces stand alone, the others run together.
func blocksOf(p string) []block {
	var (
		out   []block
		prose []string
	)
	flush := func() {
		if len(prose) > 0 {
			out = append(out, block{text: strings.Join(strings.Fields(strings.Join(prose, " ")), " ")})
			prose = nil
		}
	}
	for _, l := range strings.Split(p, "\n") {
		if !strings.HasPrefix(l, "  ") {
			prose = append(prose, l)
			continue
		}
		flush()
		l = strings.TrimRight(l, " ")
		if m := tableRow().FindStringSubmatch(l); m != nil {
			out = append(out, block{term: m[1], pad: len(m[2]), text: m[3]})
		} else {
			out = append(out, block{text: strings.TrimPrefix(l, "  "), verbatim: true})
		}
	}
	flush()
	return out
}

// helpFlags are c's own flags and the global ones, as rows of the help:
// "--from day|time|word" and its usage with the default.
func helpFlags(c *cobra.Command) (own, global [][2]string) {
	row := func(f *pflag.Flag) [2]string {
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		word, usage := placeholder(f)
		if word != "" {
			name += " " + word
		}
		return [2]string{name, strings.Join(strings.Fields(usage), " ") + flagDefault(f)}
	}
	globals := c.Root().PersistentFlags()
	c.Flags().VisitAll(func(f *pflag.Flag) {
		switch {
		case f.Hidden:
		case c.HasParent() && globals.Lookup(f.Name) == f:
			// A command's own flag of a global's name (webhooks add's
			// --url) is its own: listed with them.
			global = append(global, row(f))
		default:
			own = append(own, row(f))
		}
	})
	return own, global
}

// writeTwoColumns writes rows as an indented name column and a wrapped
// description beside it.
func writeTwoColumns(b *strings.Builder, rows [][2]string, width int, name lipgloss.Style) {
	col := 0
	for _, r := range rows {
		col = max(col, ansi.StringWidth(r[0]))
	}
	col = min(col, 30)
	indent := strings.Repeat(" ", 2+col+2)
	for _, r := range rows {
		text := wrapIndent(r[1], width, indent)
		text = strings.TrimPrefix(text, indent)
		if w := ansi.StringWidth(r[0]); w > col {
			// A long name takes its own line.
			b.WriteString("  " + name.Render(r[0]) + "\n" + indent + text + "\n")
			continue
		}
		pad := strings.Repeat(" ", col-ansi.StringWidth(r[0])+2)
		if text == "" {
			pad = ""
		}
		b.WriteString("  " + name.Render(r[0]) + pad + text + "\n")
	}
	b.WriteString("\n")
}

// wrapIndent wraps text at spaces to width, every line indented by
// indent, no line ending in spaces; a word longer than the room stands
// alone on its line, whole (a URL or a path is never broken).
func wrapIndent(text string, width int, indent string) string {
	lines := textwrap.Words(text, max(width-ansi.StringWidth(indent), 20))
	if len(lines) == 0 {
		lines = []string{""}
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(indent+l, " ")
	}
	return strings.Join(lines, "\n")
}

// manPage is the manual page of the tree under root, in roff: the
// commands with their own flags, the global flags once, then KEYS (the
// dashboard's key table), ENVIRONMENT, FILES and EXIT STATUS. The title
// line stays short, so its three parts do not run into each other at 80
// columns.
func manPage(root *cobra.Command, version string) string {
	mergeGlobalFlags(root)
	keys := keyRows()
	var b strings.Builder
	put := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	text := func(s string) string { return roffEscape(strings.Join(strings.Fields(s), " ")) }
	flags := func(rows [][2]string) {
		for _, r := range rows {
			put(".TP\n\\fB%s\\fR\n%s\n", roffEscape(r[0]), text(r[1]))
		}
	}
	put(".TH VASTDASH 1 \"\" \"vastdash %s\" \"User Commands\"\n", roffEscape(version))
	put(".SH NAME\nvastdash \\- %s\n", text(strings.ToLower(root.Short[:1])+root.Short[1:]))
	put(".SH SYNOPSIS\n.B vastdash\n[\\fIcommand\\fR] [\\fIflags\\fR]\n")
	// A paragraph's indented lines are a table (.TP) or kept as they are
	// (.nf/.fi); a paragraph after either starts afresh (.PP).
	paras := func(long string) {
		for i, p := range strings.Split(strings.TrimSpace(long), "\n\n") {
			if i > 0 {
				put(".PP\n")
			}
			prev := ""
			for _, bl := range blocksOf(p) {
				switch {
				case bl.term != "":
					put(".TP\n\\fB%s\\fR\n%s\n", roffEscape(bl.term), text(bl.text))
					prev = "row"
				case bl.verbatim:
					put(".nf\n%s\n.fi\n", roffEscape(bl.text))
					prev = "line"
				default:
					if prev == "row" {
						put(".PP\n")
					}
					put("%s\n", text(bl.text))
					prev = "prose"
				}
			}
		}
	}
	put(".SH DESCRIPTION\n")
	paras(root.Long)
	put(".SH COMMANDS\n")
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		put(".SS %s\n", roffEscape("vastdash "+c.Name()))
		long := c.Long
		if long == "" {
			long = c.Short + "."
		}
		paras(long)
		own, _ := helpFlags(c)
		flags(own)
	}
	put(".SH GLOBAL FLAGS\nThese work before or after any command.\n")
	_, global := helpFlags(root.Commands()[0])
	flags(global)
	if len(keys) > 0 {
		put(".SH KEYS\nThe dashboard's keys, by action; every one can be rebound in the [keys] table of the settings file.\n")
		flags(keys)
	}
	put(".SH ENVIRONMENT\n")
	flags([][2]string{
		{"VAST_API_KEY", "the API key, when --api-key-file is not given"},
		{"VAST_URL", "the API base URL, when --url is not given (default https://console.vast.ai)"},
		{"XDG_CONFIG_HOME", "where the key file of the vastai CLI and the settings file are looked for (default ~/.config)"},
		{"XDG_STATE_HOME", "where the dashboard remembers its filters (default ~/.local/state)"},
		{"XDG_DATA_HOME", "where the ledger, the local history, is kept (default ~/.local/share)"},
		{"NO_COLOR", "no colours, in the dashboard and the help (every state also has a word or symbol)"},
		{"COLORFGBG", "a light or dark hint for terminals that do not report their background"},
	})
	put(".SH FILES\n")
	flags([][2]string{
		{"$XDG_CONFIG_HOME/vastai/vast_api_key", "the API key, where the official vastai CLI keeps it; then ~/.vast_api_key"},
		{"$XDG_CONFIG_HOME/vastdash/config.toml", "the settings (optional)"},
		{"$XDG_STATE_HOME/vastdash/state.toml", "the Charges filters the dashboard remembers"},
		{"$XDG_DATA_HOME/vastdash/ledger-HOST-ACCOUNT.db", "the ledger: one SQLite file per account and API host, 0600 (see vastdash ledger)"},
	})
	put(".SH EXIT STATUS\n")
	flags([][2]string{
		{"0", "ok"},
		{"1", "a runtime error: the network, the API (a rejected key, a missing permission, a server error), an interrupt, the --deadline, or stdout that cannot be written"},
		{"2", "a usage or configuration error: a bad flag or value, bad settings, no key; no request is made"},
	})
	return b.String()
}

// roffEscape escapes what roff reads as markup: backslashes, and a dot or
// quote at the start of a line.
func roffEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// keyRows are the dashboard's key actions for the manual, from the one key
// table: "q (quit)" and what it does.
func keyRows() [][2]string {
	rows := make([][2]string, 0, len(keymap.Actions))
	for _, a := range keymap.Actions {
		rows = append(rows, [2]string{strings.Join(a.Keys, ", ") + " (" + a.Name + ")", a.Desc})
	}
	return rows
}
