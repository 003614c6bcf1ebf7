package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/sanitize"
)

// webhooksArgs are the options of `vastdash webhooks` and its subcommands.
type webhooksArgs struct {
	output string
	id     string
	// name and url are given when set (add needs them; edit changes
	// only what is given); events replace the webhook's events.
	name, url   *string
	events      []string
	eventsGiven bool
	yes         bool
}

// newWebhooksCommand is `vastdash webhooks`: the list, and the
// subcommands that change it.
func newWebhooksCommand(x *execution) *cobra.Command {
	a := webhooksArgs{}
	cmd := &cobra.Command{
		Use:   "webhooks",
		Short: "list and manage the webhooks alerts are delivered to",
		Long: `List the account's webhooks, where a notification whose webhooks switch is on is delivered: each one's id, name, the host it delivers to, the events it carries and when it last changed.

A webhooks switch (vastdash notifications --webhooks on) delivers to these; with no webhook carrying its event it delivers nowhere. The platform keeps at most 4 webhooks per account. A webhook's signing secret is shown once, when it is added or rotated: deliveries carry X-Vast-Signature-256, sha256= and the HMAC-SHA256 of "<X-Vast-Timestamp>.<body>" with it.

Every change is one request, then the list is read again and what the server holds is printed; an outcome nobody knows (no answer in time) says so and exits 1.`,
		Example: `
vastdash webhooks
vastdash webhooks --output json | jq '[.webhooks[] | select(.events | index("client:low_credit"))] | length'
vastdash webhooks add --name ops --url https://hooks.example.com/vast --event client:low_credit
vastdash webhooks test 3
vastdash webhooks rotate 3 > secret.txt
vastdash webhooks delete 3 --yes
`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return notACommand(c, c, args[0])
			}
			return nil
		},
		RunE: x.commandRun(nil, nil, func(ctx context.Context, s *Session) error { return listWebhooks(ctx, s, a) }),
	}
	outputFlags(cmd, &a.output, "text", "csv", "json")
	cmd.AddCommand(newWebhookAddCommand(x), newWebhookEditCommand(x), newWebhookDeleteCommand(x),
		newWebhookTestCommand(x), newWebhookRotateCommand(x))
	return cmd
}

// webhookID is the argument check of a subcommand that takes one webhook
// id, stored in a.id.
func webhookID(a *webhooksArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return &usageErr{cmd: c, err: errors.New("give the webhook's id (vastdash webhooks lists them)")}
		case len(args) > 1:
			return &usageErr{cmd: c, err: fmt.Errorf("unexpected argument %s", argText(args[1]))}
		}
		if err := api.CheckWebhookID(args[0]); err != nil {
			return &usageErr{cmd: c, err: fmt.Errorf("%s is not a webhook id: %v", argText(args[0]), err)}
		}
		a.id = args[0]
		return nil
	}
}

// specFlags are --name, --url and --event, checked as they are parsed:
// what the platform would refuse is refused before any request.
func specFlags(cmd *cobra.Command, a *webhooksArgs, verb string) {
	fs := cmd.Flags()
	fs.Var(&checkedValue{typ: "text", parse: func(s string) error {
		n, err := notices.CheckWebhookName(s)
		if err != nil {
			return badValue("--name: %v", err)
		}
		a.name = &n
		return nil
	}}, "name", verb+"the webhook's name, up to 120 characters")
	fs.Var(&checkedValue{typ: "https-url", parse: func(s string) error {
		if a.url != nil {
			// This --url shadows the global one (the API's base URL):
			// given twice, one of them was meant for the API.
			return badValue("--url given twice: here --url is the webhook's URL; set the API's base URL with VAST_URL")
		}
		u, err := notices.ParseWebhookURL(s)
		if err != nil {
			// The URL is not repeated: it may hold credentials.
			return badValue("--url: %v", err)
		}
		a.url = &u
		return nil
	}}, "url", verb+"the https URL deliveries go to, up to 2,048 characters, public\n(here --url is the webhook's: the API's base URL comes from VAST_URL)")
	fs.Var(&checkedValue{typ: "event", parse: func(s string) error {
		a.eventsGiven = true
		for _, e := range strings.Split(s, ",") {
			a.events = append(a.events, strings.TrimSpace(e))
		}
		return nil
	}}, "event", verb+"an event the webhook carries, a key of the notification catalogue\nsuch as client:low_credit (repeatable, or comma-separated)")
	completeWith(cmd, "event", "client:low_credit")
}

// errURLBefore refuses a --url written where the global flags go, before
// add or edit: whoever wrote it there meant the API's base URL, but on
// add and edit --url is the webhook's.
var errURLBefore = errors.New("on add and edit --url is the webhook's, and this one comes before them: put the webhook's --url after add/edit; the API's base URL comes from VAST_URL")

// urlBeforeSubcommand reports a --url among args (the command line as
// typed) before the last name of cmd's path ("webhooks add"). Flag values
// are stepped over, so a value that reads "add" is not taken for it.
func urlBeforeSubcommand(cmd *cobra.Command, args []string) bool {
	path := strings.Fields(cmd.CommandPath())[1:]
	takesValue := func(f *pflag.Flag) bool { return f != nil && f.NoOptDefVal == "" }
	seen := 0
	for i := 0; i < len(args) && seen < len(path); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return false
		case strings.HasPrefix(arg, "--"):
			name, _, inline := strings.Cut(arg[2:], "=")
			if name == "url" {
				return true
			}
			if !inline && takesValue(cmd.Flags().Lookup(name)) {
				i++
			}
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			// A group of shorthands: the first that takes a value
			// takes the rest of the group, or the next argument.
			for j := 1; j < len(arg); j++ {
				if takesValue(cmd.Flags().ShorthandLookup(arg[j : j+1])) {
					if j == len(arg)-1 {
						i++
					}
					break
				}
			}
		case arg == path[seen]:
			seen++
		}
	}
	return false
}

func newWebhookAddCommand(x *execution) *cobra.Command {
	a := webhooksArgs{}
	var cmd *cobra.Command
	cmd = &cobra.Command{
		Use:   "add",
		Short: "register a webhook and print its signing secret, once",
		Long: `Register a webhook: a name, an https URL and the events it carries, each checked before anything is sent (https only, no credentials in the URL, no private or loopback address, events of the notification catalogue). The account may have 4 at most.

Prints the webhook as the server holds it and its signing secret: the platform shows the secret this once (vastdash webhooks rotate gives a new one).`,
		Example: `
vastdash webhooks add --name ops --url https://hooks.example.com/vast --event client:low_credit
vastdash webhooks add --name all --url https://hooks.example.com/all --event client:low_credit,host:machine_offline --json
`,
		Args: noArgs,
		RunE: x.commandRun(nil, func() error {
			switch {
			case urlBeforeSubcommand(cmd, x.args):
				return errURLBefore
			case a.name == nil:
				return errors.New("--name is required: give the webhook a name")
			case a.url == nil:
				return errors.New("--url is required: the https URL deliveries go to")
			}
			_, err := notices.PickedEvents(a.events)
			return err
		}, func(ctx context.Context, s *Session) error { return addWebhook(ctx, s, a) }),
	}
	specFlags(cmd, &a, "")
	outputFlags(cmd, &a.output, "text", "json")
	return cmd
}

func newWebhookEditCommand(x *execution) *cobra.Command {
	a := webhooksArgs{}
	var cmd *cobra.Command
	cmd = &cobra.Command{
		Use:   "edit ID",
		Short: "change a webhook's name, URL or events",
		Long:  `Change what is given of webhook ID: its name, its URL, its events (--event replaces them all). The webhook is read right before the save and only the fields given change, so a change made meanwhile elsewhere is kept; asking for what the server holds sends nothing.`,
		Example: `
vastdash webhooks edit 3 --url https://hooks.example.com/v2
vastdash webhooks edit 3 --event client:low_credit --event client:payment_failed
`,
		Args: webhookID(&a),
		RunE: x.commandRun(nil, func() error {
			if urlBeforeSubcommand(cmd, x.args) {
				return errURLBefore
			}
			if a.name == nil && a.url == nil && !a.eventsGiven {
				return errors.New("nothing to change: give --name, --url or --event")
			}
			if a.eventsGiven {
				_, err := notices.PickedEvents(a.events)
				return err
			}
			return nil
		}, func(ctx context.Context, s *Session) error { return editWebhook(ctx, s, a) }),
	}
	specFlags(cmd, &a, "the new value: ")
	outputFlags(cmd, &a.output, "text", "json")
	return cmd
}

func newWebhookDeleteCommand(x *execution) *cobra.Command {
	a := webhooksArgs{}
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "delete a webhook (asks first; --yes does not)",
		Long:  `Delete webhook ID. On a terminal it shows the webhook and asks; --yes does not ask, and is needed when stdin is not a terminal (without it nothing is sent, exit 2). The events it carried are delivered nowhere else unless another webhook carries them.`,
		Example: `
vastdash webhooks delete 3
vastdash webhooks delete 3 --yes
`,
		Args: webhookID(&a),
		RunE: x.commandRun(nil, func() error { return x.env.canAsk(a.yes, deleteAction(a.id)) },
			func(ctx context.Context, s *Session) error { return deleteWebhook(ctx, s, a, x.env) }),
	}
	yesFlag(cmd, &a.yes, "delete")
	outputFlags(cmd, &a.output, "text", "json")
	return cmd
}

func newWebhookTestCommand(x *execution) *cobra.Command {
	a := webhooksArgs{}
	cmd := &cobra.Command{
		Use:   "test ID",
		Short: "send webhook ID a test delivery and print how it went",
		Long:  `Ask the platform to send webhook ID a test delivery and print how it went. A delivery the endpoint did not take prints what the server said and exits 1.`,
		Args:  webhookID(&a),
		RunE:  x.commandRun(nil, nil, func(ctx context.Context, s *Session) error { return testWebhook(ctx, s, a) }),
	}
	outputFlags(cmd, &a.output, "text", "json")
	return cmd
}

func newWebhookRotateCommand(x *execution) *cobra.Command {
	a := webhooksArgs{}
	cmd := &cobra.Command{
		Use:   "rotate ID",
		Short: "give webhook ID a new signing secret, printed once (asks first; --yes does not)",
		Long: `Give webhook ID a new signing secret and print it to stdout, alone on its line (--json: with the id): the platform shows it this once. The old secret stops working at once: update the receiving end.

On a terminal it shows the webhook and asks first; --yes does not ask, and is needed when stdin is not a terminal (without it nothing is sent, exit 2).`,
		Example: `
vastdash webhooks rotate 3 > secret.txt
vastdash webhooks rotate 3 --yes --json
`,
		Args: webhookID(&a),
		RunE: x.commandRun(nil, func() error { return x.env.canAsk(a.yes, rotateAction(a.id)) },
			func(ctx context.Context, s *Session) error { return rotateWebhook(ctx, s, a, x.env) }),
	}
	yesFlag(cmd, &a.yes, "rotate")
	outputFlags(cmd, &a.output, "text", "json")
	return cmd
}

// webhookRow is one webhook as every output writes it, sanitized.
type webhookRow struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	URL    string   `json:"url"`
	Host   string   `json:"host"`
	Events []string `json:"events"`
	// Changed is RFC 3339 in the settings zone; null when the server did
	// not say.
	Changed *string `json:"changed"`
	// when is Changed in the one short form of text output ("26 Nov
	// 14:05"), "" when the server did not say.
	when string
}

func (s *Session) webhookRow(w api.Webhook) webhookRow {
	r := webhookRow{ID: w.ID, Name: sanitize.String(w.Name), URL: sanitize.String(w.URL), Host: notices.WebhookHost(w.URL), Events: []string{}}
	for _, e := range w.Events {
		r.Events = append(r.Events, sanitize.String(e))
	}
	if !w.Changed.IsZero() {
		c := rfc3339(w.Changed.In(s.Billing.Location()))
		r.Changed, r.when = &c, s.Billing.When(w.Changed)
	}
	return r
}

// listWebhooks is `vastdash webhooks`.
func listWebhooks(ctx context.Context, s *Session, a webhooksArgs) error {
	l, err := notices.Webhooks(ctx, s.Billing)
	if err != nil {
		return err
	}
	if l.Skipped > 0 {
		warn(s.stderr, billing.Plural(l.Skipped, "webhook", "webhooks")+" the server sent could not be read: the list is not complete")
	}
	rows := make([]webhookRow, len(l.Webhooks))
	for i, w := range l.Webhooks {
		rows[i] = s.webhookRow(w)
	}
	return s.answer(func(w io.Writer) error {
		switch a.output {
		case "json":
			return writeJSON(w, struct {
				Webhooks []webhookRow `json:"webhooks"`
				Skipped  int          `json:"skipped"`
			}{rows, l.Skipped})
		case "csv":
			out := [][]string{{"id", "name", "url", "host", "events", "changed"}}
			for _, r := range rows {
				out = append(out, []string{r.ID, export.Cell(r.Name), export.Cell(r.URL), export.Cell(r.Host), strings.Join(r.Events, " "), deref(r.Changed)})
			}
			return writeCSV(w, out)
		}
		if len(rows) == 0 {
			_, err := fmt.Fprintln(w, "no webhooks registered")
			return err
		}
		t := &table{cols: webhookColumns, fit: webhooksFit, width: s.width}
		return t.write(w, func(yield func([]string) bool) {
			for _, r := range rows {
				changed := "—"
				if r.when != "" {
					changed = r.when
				}
				if !yield([]string{r.ID, r.Name, r.Host, strings.Join(r.Events, ", "), changed}) {
					return
				}
			}
		})
	})
}

// The list's columns: the host is never cut (it says where the alerts go).
var webhookColumns = []column{
	{header: "ID", most: 16}, {header: "NAME", most: 40}, {header: "HOST", most: 80}, {header: "EVENTS", most: 80}, {header: "CHANGED"},
}

// webhooksFit is how the list meets a narrow terminal: the change time
// goes, the events shrink to 24 cells and the name to 16, then the events
// go (webhooks show ID says them) and last the name.
var webhooksFit = []fitStep{{4, 0}, {3, 24}, {1, 16}, {3, 0}, {1, 0}}

// webhookLines is a webhook as `add` and `edit` print it.
func webhookLines(r webhookRow) []string {
	changed := "unknown"
	if r.when != "" {
		changed = r.when
	}
	return []string{"id: " + r.ID, "name: " + r.Name, "url: " + r.URL, "events: " + strings.Join(r.Events, ", "), "changed: " + changed}
}

// writeWebhook writes a webhook and, when not zero, its secret: the
// secret's one appearance, on stdout only.
func writeWebhook(output string, r *webhookRow, secret api.WebhookSecret) func(w io.Writer) error {
	return func(w io.Writer) error {
		if output == "json" {
			v := struct {
				Webhook *webhookRow `json:"webhook"`
				Secret  *string     `json:"secret,omitempty"`
			}{Webhook: r}
			if !secret.IsZero() {
				sec := secret.Reveal()
				v.Secret = &sec
			}
			return writeJSON(w, v)
		}
		var lines []string
		if r != nil {
			lines = webhookLines(*r)
		}
		if !secret.IsZero() {
			lines = append(lines, "secret: "+secret.Reveal())
		}
		return linesOf(lines)(w)
	}
}

// changed prints the webhook a change left (the one found, else none) and
// its secret, and returns err after it: the outcome of a change that did
// not go as asked is still what the server holds, printed.
func (s *Session) changed(a webhooksArgs, res notices.WebhookResult, err error) error {
	var row *webhookRow
	if res.Found {
		r := s.webhookRow(res.Webhook)
		row = &r
	}
	write := writeWebhook(a.output, row, res.Secret)
	if err == nil {
		return s.answer(write)
	}
	if row == nil && res.Secret.IsZero() {
		return err
	}
	if werr := s.answer(write); werr != nil {
		return fmt.Errorf("%w, and the answer cannot be written: %w", err, unwrapPath(errors.Unwrap(werr)))
	}
	return err
}

// inputError makes a refusal of what was typed a usage error (exit 2),
// and points a webhook that does not exist at the list.
func inputError(err error) error {
	switch {
	case errors.Is(err, notices.ErrWebhookInput):
		return usageError(err)
	case errors.Is(err, notices.ErrNoSuchWebhook):
		return fmt.Errorf("%w (vastdash webhooks lists them)", err)
	}
	return err
}

// addWebhook is `vastdash webhooks add`.
func addWebhook(ctx context.Context, s *Session, a webhooksArgs) error {
	res, err := notices.AddWebhook(ctx, s.Billing, notices.WebhookInput{Name: *a.name, URL: *a.url, Events: a.events}, nil)
	switch res.Outcome {
	case notices.WebhookLostTook:
		err = fmt.Errorf("the outcome of the add is unknown (%w); read again, the server holds webhook %s, but its secret never came: vastdash webhooks rotate %s gives one", err, res.Webhook.ID, res.Webhook.ID)
	case notices.WebhookHalfDone:
		if !res.Secret.IsZero() {
			err = fmt.Errorf("%w; its secret is printed", err)
		}
	case notices.WebhookLostNotTaken:
		err = fmt.Errorf("the outcome of the add is unknown (%w); read again, the server holds no such webhook: nothing was added", err)
	case notices.WebhookUnread:
		err = fmt.Errorf("the outcome of the add is unknown (%w), and the webhooks could not be read again: vastdash webhooks lists them", err)
	case notices.WebhookRefused:
		if errors.Is(err, notices.ErrWebhookLimit) {
			err = fmt.Errorf("not added: %w (vastdash webhooks delete ID)", err)
		} else {
			err = inputError(err)
		}
	}
	return s.changed(a, res, err)
}

// editWebhook is `vastdash webhooks edit`.
func editWebhook(ctx context.Context, s *Session, a webhooksArgs) error {
	ch := notices.WebhookChange{Name: a.name, URL: a.url}
	if a.eventsGiven {
		ch.Events = a.events
	}
	res, err := notices.EditWebhook(ctx, s.Billing, a.id, ch)
	switch res.Outcome {
	case notices.WebhookUnchanged:
		warn(s.stderr, "nothing to change: the server already holds that; nothing was sent")
	case notices.WebhookDiffers:
		err = fmt.Errorf("saved, but the list read again no longer holds webhook %s", a.id)
	case notices.WebhookLostTook, notices.WebhookLostNotTaken:
		err = fmt.Errorf("the outcome of the edit is unknown (%w); the webhook printed is what the server holds now", err)
	case notices.WebhookLost, notices.WebhookUnread:
		err = fmt.Errorf("the outcome of the edit is unknown (%w), and webhook %s could not be read again", err, a.id)
	case notices.WebhookRefused, notices.WebhookHalfDone:
		return inputError(err)
	}
	return s.changed(a, res, err)
}

// deleteAction is what webhooks delete asks about.
func deleteAction(id string) action {
	return action{command: "webhooks delete", does: "deletes webhook " + id, done: "deleted"}
}

// rotateAction is what webhooks rotate asks about.
func rotateAction(id string) action {
	return action{command: "webhooks rotate", does: "rotates the secret of webhook " + id, done: "rotated"}
}

// confirmWebhook asks about webhook a.id unless a.yes: the webhook is read
// first, so that the question shows which one it is (question writes it);
// one the account does not have is an error before anything is sent.
func confirmWebhook(ctx context.Context, s *Session, e *env, a webhooksArgs, question func(webhookRow) string, act action) error {
	if a.yes {
		return nil
	}
	l, err := notices.Webhooks(ctx, s.Billing)
	if err != nil {
		return err
	}
	w, ok := l.Find(a.id)
	if !ok {
		return fmt.Errorf("the account has no webhook %s (vastdash webhooks lists them)", a.id)
	}
	return e.confirm(false, question(s.webhookRow(w)), act)
}

// deleteWebhook is `vastdash webhooks delete`: on a terminal it shows the
// webhook and asks first.
func deleteWebhook(ctx context.Context, s *Session, a webhooksArgs, e *env) error {
	err := confirmWebhook(ctx, s, e, a, func(r webhookRow) string {
		return fmt.Sprintf("Delete webhook %s, %q → %s (%s)?", r.ID, r.Name, r.Host, strings.Join(r.Events, ", "))
	}, deleteAction(a.id))
	if err != nil {
		return err
	}
	res, err := notices.DeleteWebhook(ctx, s.Billing, a.id)
	switch res.Outcome {
	case notices.WebhookDone:
	case notices.WebhookDiffers:
		return fmt.Errorf("deleted, but the list read again still holds webhook %s", a.id)
	case notices.WebhookLostTook:
		warn(s.stderr, "no answer to the delete ("+s.Billing.Explain(err)+"), but the list read again no longer holds it")
	case notices.WebhookLostNotTaken:
		return fmt.Errorf("the outcome of the delete is unknown (%w); read again, the server still holds webhook %s", err, a.id)
	case notices.WebhookUnread:
		return fmt.Errorf("the outcome of the delete is unknown (%w), and the webhooks could not be read again", err)
	default:
		return inputError(err)
	}
	return s.answer(func(w io.Writer) error {
		if a.output == "json" {
			return writeJSON(w, struct {
				Deleted string `json:"deleted"`
			}{a.id})
		}
		return linesOf([]string{"deleted webhook " + a.id})(w)
	})
}

// testWebhook is `vastdash webhooks test`.
func testWebhook(ctx context.Context, s *Session, a webhooksArgs) error {
	res, err := notices.TestWebhook(ctx, s.Billing, a.id)
	if err != nil {
		return inputError(err)
	}
	write := func(w io.Writer) error {
		if a.output == "json" {
			v := struct {
				ID        string `json:"id"`
				Known     bool   `json:"known"`
				Delivered bool   `json:"delivered"`
				Status    *int   `json:"status"`
				Msg       string `json:"msg"`
			}{ID: a.id, Known: res.Known, Delivered: res.Delivered, Msg: sanitize.String(res.Msg)}
			if res.Status != 0 {
				v.Status = &res.Status
			}
			return writeJSON(w, v)
		}
		return linesOf([]string{"webhook " + a.id + ": " + notices.TestText(res)})(w)
	}
	if res.Known && !res.Delivered {
		err := errors.New("the test delivery did not reach webhook " + a.id + "'s endpoint")
		if werr := s.answer(write); werr != nil {
			return fmt.Errorf("%w, and the answer cannot be written: %w", err, unwrapPath(errors.Unwrap(werr)))
		}
		return err
	}
	return s.answer(write)
}

// rotateWebhook is `vastdash webhooks rotate`: on a terminal it shows the
// webhook and asks first (the old secret stops working at once), then the
// new secret, alone on stdout.
func rotateWebhook(ctx context.Context, s *Session, a webhooksArgs, e *env) error {
	err := confirmWebhook(ctx, s, e, a, func(r webhookRow) string {
		return fmt.Sprintf("Rotate the secret of webhook %s, %q → %s (the old one stops working at once)?", r.ID, r.Name, r.Host)
	}, rotateAction(a.id))
	if err != nil {
		return err
	}
	res, err := notices.RotateWebhookSecret(ctx, s.Billing, a.id)
	switch res.Outcome {
	case notices.WebhookDone:
		if res.Secret.IsZero() {
			return errors.New("the server sent no new secret")
		}
	case notices.WebhookHalfDone:
		if res.Secret.IsZero() {
			return inputError(err)
		}
		warn(s.stderr, "the secret was rotated, but "+s.Billing.Explain(err))
	case notices.WebhookLost, notices.WebhookUnread:
		return fmt.Errorf("the outcome of the rotation is unknown (%w): the old secret may no longer work; rotate again for a new one", err)
	default:
		return inputError(err)
	}
	return s.answer(func(w io.Writer) error {
		if a.output == "json" {
			return writeJSON(w, struct {
				ID     string `json:"id"`
				Secret string `json:"secret"`
			}{a.id, res.Secret.Reveal()})
		}
		return linesOf([]string{res.Secret.Reveal()})(w)
	})
}
