package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/suggest"
)

// The flag values below check what they are given when the flag is parsed,
// so a bad value ends the run with one line and exit 2 before the key is
// looked up or a request is made. Each error names the flag and the value
// (through argText) and says what is wanted.

// flagValueError is the error of a vastdash flag value: its text already
// names the flag and the value, so it is printed as it is.
type flagValueError struct{ msg string }

func (e *flagValueError) Error() string { return e.msg }

func badValue(format string, a ...any) error {
	return &flagValueError{fmt.Sprintf(format, a...)}
}

// argText quotes a word from the command line for an error message, unless
// it may be the API key: the value of VAST_API_KEY, or a long run of
// letters and digits (Vast keys are 64 hex digits), pasted in the wrong
// place. An error must not carry the key to a terminal, a log or a CI run.
func argText(s string) string {
	if holdsEnvKey(s) {
		return "(a value holding the API key, not shown)"
	}
	if looksLikeKey(s) {
		return "(a value that looks like an API key, not shown)"
	}
	return fmt.Sprintf("%q", s)
}

// holdsEnvKey reports that s holds the value of VAST_API_KEY.
func holdsEnvKey(s string) bool {
	key := strings.TrimSpace(os.Getenv("VAST_API_KEY"))
	return key != "" && strings.Contains(s, key)
}

// mayBeKey reports that a word of the command line may be the API key: it
// holds VAST_API_KEY's value, or it or one of its parts — split at what
// joins a flag to its value or lists values ("--url=KEY", "-eKEY", "a,KEY",
// "client:KEY") — is shaped as Vast makes keys (hexKey). It is narrower
// than argText's rule on purpose: a run is refused only for what is a key,
// never for a long label or name a user chose ("run-20261129-1200-exp42-…"),
// which argText still keeps out of any error.
func mayBeKey(word string) bool {
	if holdsEnvKey(word) {
		return true
	}
	for _, part := range strings.FieldsFunc(word, func(r rune) bool {
		return strings.ContainsRune(" \t\r\n,;=:'\"", r)
	}) {
		if hexKey(strings.TrimLeft(part, "-")) || hexKey(part) {
			return true
		}
	}
	return false
}

// errKeyOnCommandLine refuses a command line with a word that may be the
// key, before any flag or argument is read: no error, suggestion, file
// name, request path or log can then repeat it, whatever flag or argument
// it was typed in.
var errKeyOnCommandLine = errors.New("a word on the command line may be the API key (it is not shown and nothing was sent): vastdash reads the key only from VAST_API_KEY, --api-key-file or the key file")

// keyOnCommandLine is errKeyOnCommandLine when a word of args may be the
// key, else nil.
func keyOnCommandLine(args []string) error {
	for _, a := range args {
		if mayBeKey(a) {
			return errKeyOnCommandLine
		}
	}
	return nil
}

// looksLikeKey reports a word of letters, digits, '-' and '_' with a run
// of 32 or more letters and digits, 8 of them digits: a key or a token
// (Vast keys are 64 hex digits), never a flag value vastdash takes. The
// run stops at '-' and '_', so a job's label with its dates and run
// numbers ("train-llama-70b-run-20261129-0001") or a UUID is no key,
// while a key joined to a word ("lab-KEY") still is.
func looksLikeKey(s string) bool {
	if len(s) < 32 {
		return false
	}
	found := false
	run, digits := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			run++
			digits++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			run++
		case c == '-', c == '_':
			run, digits = 0, 0
		default:
			return false
		}
		if run >= 32 && digits >= 8 {
			found = true
		}
	}
	return found
}

// hexKey reports a word holding a run shaped as Vast's keys are: 32 or
// more hex digits (theirs are 64; a key cut short when pasted still
// counts), at least 8 of them decimal digits, between '-', '_' or the
// word's ends. It is looksLikeKey narrowed to hex.
func hexKey(s string) bool {
	if !looksLikeKey(s) {
		return false
	}
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' }) {
		if len(run) < 32 {
			continue
		}
		hex := true
		for _, c := range run {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				hex = false
				break
			}
		}
		if hex && looksLikeKey(run) {
			return true
		}
	}
	return false
}

// durationValue is a duration flag bounded to (0, max]: pflag's own
// duration takes 0 and negative values, and a timeout of 0 gives up at once
// (or, read as "unset", never).
type durationValue struct {
	d       *time.Duration
	name    string
	max     time.Duration
	example string
}

func (v *durationValue) String() string {
	if *v.d == 0 {
		return ""
	}
	return durationText(*v.d)
}

// durationText is d as a person writes it, as the flags take it: "1h",
// "24h", "1m30s" — Go's spelling without its zero minutes and seconds
// ("1h0m0s").
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return badValue("--%s %s is not a duration like %s", v.name, argText(s), v.example)
	case d <= 0:
		return badValue("--%s must be positive, like %s (got %s)", v.name, v.example, argText(s))
	case d > v.max:
		return badValue("--%s %s is longer than %s", v.name, argText(s), durationText(v.max))
	}
	*v.d = d
	return nil
}

func (v *durationValue) Type() string { return "duration" }

// durationFlag adds a bounded duration flag to fs, stored in p.
func durationFlag(fs *pflag.FlagSet, p *time.Duration, name string, max time.Duration, example, usage string) {
	fs.Var(&durationValue{d: p, name: name, max: max, example: example}, name, usage)
}

// enumValue is a flag that takes one of a few words, in any case.
type enumValue struct {
	p       *string
	name    string
	allowed []string
}

func (v *enumValue) String() string { return *v.p }

func (v *enumValue) Set(s string) error {
	w := strings.ToLower(strings.TrimSpace(s))
	for _, a := range v.allowed {
		if w == a {
			*v.p = w
			return nil
		}
	}
	return badValue("unknown --%s %s (want %s)", v.name, argText(s), orList(v.allowed))
}

// Type is the choices, which the help shows as the placeholder.
func (v *enumValue) Type() string { return strings.Join(v.allowed, "|") }

// enumFlag adds to cmd a flag taking one of allowed, stored in p (which
// holds the default), and completes it in the shell.
func enumFlag(cmd *cobra.Command, p *string, name string, allowed []string, usage string) {
	cmd.Flags().Var(&enumValue{p: p, name: name, allowed: allowed}, name, usage)
	completeWith(cmd, name, allowed...)
}

// completeWith makes the shell complete flag name with words.
func completeWith(cmd *cobra.Command, name string, words ...string) {
	// The error is for a flag that does not exist or is completed twice:
	// a mistake in this file, which TestEveryEnumCompletes catches.
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp))
}

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// checkedValue is a flag whose words are read by parse, which returns the
// error to print; the flag keeps the last word given.
type checkedValue struct {
	text  string
	typ   string
	parse func(s string) error
}

func (v *checkedValue) String() string { return v.text }

func (v *checkedValue) Set(s string) error {
	if err := v.parse(s); err != nil {
		return err
	}
	v.text = s
	return nil
}

func (v *checkedValue) Type() string { return v.typ }

// unknownCommand is the root's argument check: the root takes none, so a
// word there is a command vastdash does not have.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return notACommand(c, c, args[0])
}

// notACommand is the usage error of c for word, which names no command
// under parent: it suggests the nearest ones.
func notACommand(c, parent *cobra.Command, word string) error {
	msg := "unknown command " + argText(word)
	if s := parent.SuggestionsFor(word); len(s) > 0 && !looksLikeKey(word) {
		msg += " (did you mean " + orList(s) + "?)"
	}
	return &usageErr{cmd: c, err: errors.New(msg)}
}

// noArgs is the argument check of a command that takes only flags.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &usageErr{cmd: c, err: fmt.Errorf("unexpected argument %s", argText(args[0]))}
	}
	return nil
}

// flagError rewrites pflag's errors in vastdash's words (args are the
// command line, for the command a misplaced flag belongs to): "--flag" style,
// a suggestion for a mistyped name, a value's own message, and never the
// whole word typed, which may be a key pasted in the wrong place.
func flagError(c *cobra.Command, err error, args []string) error {
	var (
		own      *flagValueError
		unknown  *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	switch {
	case errors.As(err, &own):
		return own
	case errors.As(err, &unknown):
		if unknown.GetSpecifiedShortnames() != "" {
			return fmt.Errorf("unknown flag -%s", string([]rune(unknown.GetSpecifiedName())[:1]))
		}
		name := unknown.GetSpecifiedName()
		if looksLikeKey(name) {
			return errors.New("unknown flag (a name that looks like an API key, not shown)")
		}
		owners := commandsWithFlag(c, name)
		// The command typed after the flag, when it is one of them.
		for _, a := range args {
			if slices.Contains(owners, a) {
				owners = []string{a}
				break
			}
		}
		if len(owners) == 1 {
			return fmt.Errorf("--%s goes after the command: vastdash %s --%s", name, owners[0], name)
		} else if len(owners) > 1 {
			return fmt.Errorf("--%s goes after the command (%s): vastdash %s --%s", name, orList(owners), owners[0], name)
		}
		msg := "unknown flag --" + name
		if s := suggestFlags(c.Flags(), name); len(s) > 0 {
			msg += " (did you mean " + orList(s) + "?)"
		}
		return errors.New(msg)
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		want := f.Value.Type()
		if want == "bool" {
			want = "true or false"
		}
		return fmt.Errorf("--%s %s: want %s", f.Name, argText(invalid.GetValue()), want)
	case errors.As(err, &required):
		return fmt.Errorf("--%s needs a value", required.GetFlag().Name)
	}
	return err
}

// commandsWithFlag names the commands below c that have their own flag
// name: a command's flag given before the command ("vastdash --json
// credit") lands on the root, which does not know it.
func commandsWithFlag(c *cobra.Command, name string) []string {
	var owners []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && sub.LocalNonPersistentFlags().Lookup(name) != nil {
			owners = append(owners, sub.Name())
		}
	}
	return owners
}

// suggestFlags are the flags of fs closest to a mistyped name: one edit
// away (two for names longer than 4 letters, where two edits still leave
// most of the word), or starting with what was typed ("--api-key" suggests
// --api-key-file). The nearest win; at most three.
func suggestFlags(fs *pflag.FlagSet, typed string) []string {
	most := 2
	if len(typed) > 4 {
		most = 3
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	out := suggest.Closest(typed, names, most, true)
	for i := range out {
		out[i] = "--" + out[i]
	}
	slices.Sort(out)
	return out[:min(len(out), 3)]
}
