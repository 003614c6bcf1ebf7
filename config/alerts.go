package config

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/notify"
)

// AlertsToEnv names the variable whose comma-separated URLs replace the
// [alerts] table's `to` (containers, a systemd unit's credentials).
const AlertsToEnv = "VASTDASH_ALERTS_TO"

// Bounds of the alert settings: a runway past a year, or more targets than
// anyone keeps, is a typo.
const (
	MaxAlertRunway  = 365 * 24 * time.Hour
	maxAlertTargets = 20
	maxBudgetShares = 5
)

// Alerts is the [alerts] table: where alerts go and what is told.
type Alerts struct {
	// To are the targets (shoutrrr URLs), from the file or AlertsToEnv.
	To []notify.Target
	// ToFrom says where To came from ("FILE:LINE" or AlertsToEnv), for
	// messages.
	ToFrom string
	// Runway tells when the credit lasts less than this at the current
	// rate; 0 is off.
	Runway time.Duration
	// Credit tells when the credit falls below it; 0 takes the account's
	// low-balance threshold when that is on.
	Credit money.Amount
	// Leaks tells a money leak not reported before.
	Leaks bool
	// Budget are the shares of the monthly budget, in tenths of a percent,
	// whose crossing by the month's spend is told, ascending.
	Budget []int64
	// PriceIncreases tells a host price increase waiting for an answer.
	PriceIncreases bool
	// Digest is the time of day of the daily digest in the settings'
	// zone, as minutes after midnight; DigestOn is false when off.
	Digest   int
	DigestOn bool
}

// DefaultAlerts are the rules when the table does not say: every rule
// on (a runway under a day, the account's threshold, 80 % and 100 % of the
// budget), no digest, no targets.
func DefaultAlerts() Alerts {
	return Alerts{Runway: 24 * time.Hour, Leaks: true, Budget: []int64{800, 1000}, PriceIncreases: true}
}

// alertsTable decodes [alerts]; each field checks its value so the
// decoder reports the line.
type alertsTable struct {
	To             targetList  `toml:"to"`
	Runway         alertRunway `toml:"runway"`
	Credit         alertCredit `toml:"credit"`
	Leaks          toggle      `toml:"leaks"`
	Budget         shareList   `toml:"budget"`
	PriceIncreases toggle      `toml:"price_increases"`
	Digest         dayTime     `toml:"digest"`
}

// apply sets the table's values over a's defaults; line is where `to`
// is written, for messages.
func (t *alertsTable) apply(a *Alerts, toFrom string) {
	if t.To.set {
		a.To, a.ToFrom = t.To.value, toFrom
	}
	if t.Runway.set {
		a.Runway = t.Runway.value
	}
	if t.Credit.set {
		a.Credit = t.Credit.value
	}
	if t.Leaks.set {
		a.Leaks = t.Leaks.value
	}
	if t.Budget.set {
		a.Budget = t.Budget.value
	}
	if t.PriceIncreases.set {
		a.PriceIncreases = t.PriceIncreases.value
	}
	if t.Digest.set {
		a.Digest, a.DigestOn = t.Digest.value, t.Digest.on
	}
}

// parseTargets parses URLs; the error names the target by its place in
// the list, never by its text.
func parseTargets(urls []string) ([]notify.Target, error) {
	if len(urls) > maxAlertTargets {
		return nil, fmt.Errorf("alerts.to holds %d targets: at most %d", len(urls), maxAlertTargets)
	}
	var ts []notify.Target
	for i, u := range urls {
		if strings.TrimSpace(u) == "" {
			continue
		}
		t, err := notify.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("alerts.to, target %d: %s", i+1, strings.TrimPrefix(err.Error(), notify.ErrTarget.Error()+": "))
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// targetList decodes `to`: a list of URLs (one URL alone is taken too).
type targetList struct {
	value []notify.Target
	set   bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (l *targetList) UnmarshalTOML(v any) error {
	var urls []string
	switch x := v.(type) {
	case string:
		urls = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return errors.New(`alerts.to must be a list of URLs in quotes, like ["ntfy://ntfy.sh/my-topic"]`)
			}
			urls = append(urls, s)
		}
	default:
		return errors.New(`alerts.to must be a list of URLs in quotes, like ["ntfy://ntfy.sh/my-topic"]`)
	}
	ts, err := parseTargets(urls)
	if err != nil {
		return err
	}
	l.value, l.set = ts, true
	return nil
}

var errAlertRunway = errors.New(`alerts.runway must be "0" (off) or a duration up to a year, like "24h" or "3d"`)

// alertRunway decodes `runway`: a Go duration, days ("3d") too, or "0".
type alertRunway struct {
	value time.Duration
	set   bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (r *alertRunway) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x != 0 {
			return errAlertRunway
		}
		r.value, r.set = 0, true
		return nil
	case string:
		x = strings.TrimSpace(x)
		if x == "0" {
			r.value, r.set = 0, true
			return nil
		}
		var d time.Duration
		var err error
		if n, ok := strings.CutSuffix(x, "d"); ok {
			var days int64
			if _, err = fmt.Sscanf(n, "%d", &days); err == nil && fmt.Sprint(days) == n && days > 0 && days <= 365 {
				d = time.Duration(days) * 24 * time.Hour
			} else {
				err = errAlertRunway
			}
		} else {
			d, err = time.ParseDuration(x)
		}
		if err != nil || d <= 0 || d > MaxAlertRunway {
			return errAlertRunway
		}
		r.value, r.set = d, true
		return nil
	}
	return errAlertRunway
}

var errAlertCredit = errors.New("alerts.credit must be dollars from 0 (the account's low-balance threshold) up to the budget's limit, like 25 or \"25.50\"")

// alertCredit decodes `credit`: dollars, 0 for the account's threshold.
type alertCredit struct {
	value money.Amount
	set   bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (c *alertCredit) UnmarshalTOML(v any) error {
	if n, ok := v.(int64); ok && n == 0 {
		c.value, c.set = 0, true
		return nil
	}
	var b budget
	if err := b.UnmarshalTOML(v); err != nil {
		return errAlertCredit
	}
	c.value, c.set = b.value, true
	return nil
}

var errShares = errors.New("alerts.budget must be a list of shares of the budget above 0 and up to 10, like [0.8, 1.0]")

// shareList decodes `budget`: shares of the monthly budget.
type shareList struct {
	value []int64
	set   bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (l *shareList) UnmarshalTOML(v any) error {
	xs, ok := v.([]any)
	if !ok || len(xs) > maxBudgetShares {
		return errShares
	}
	var pm []int64
	for _, x := range xs {
		var f float64
		switch n := x.(type) {
		case float64:
			f = n
		case int64:
			f = float64(n)
		default:
			return errShares
		}
		if math.IsNaN(f) || f <= 0 || f > 10 {
			return errShares
		}
		pm = append(pm, int64(math.Round(f*1000)))
	}
	for i := 1; i < len(pm); i++ {
		if pm[i] <= pm[i-1] {
			return errors.New("alerts.budget must list its shares from the smallest up, each once, like [0.8, 1.0]")
		}
	}
	l.value, l.set = pm, true
	return nil
}

var errDayTime = errors.New(`alerts.digest must be a time of day "HH:MM" (24-hour, like "09:00"), or "" for no digest`)

// dayTime decodes `digest`: "HH:MM" or "" (off).
type dayTime struct {
	value   int
	on, set bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (d *dayTime) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return errDayTime
	}
	if s = strings.TrimSpace(s); s == "" {
		d.on, d.set = false, true
		return nil
	}
	t, err := time.Parse("15:04", s)
	if err != nil {
		return errDayTime
	}
	d.value, d.on, d.set = t.Hour()*60+t.Minute(), true, true
	return nil
}

// alertsFromEnv replaces a's targets with AlertsToEnv's when it is set.
func alertsFromEnv(env Env, a *Alerts) error {
	v := env.getenv(AlertsToEnv)
	if strings.TrimSpace(v) == "" {
		return nil
	}
	ts, err := parseTargets(strings.Split(v, ","))
	if err != nil {
		return newError(ErrSettings, AlertsToEnv+": "+strings.TrimPrefix(err.Error(), "alerts.to, "))
	}
	a.To, a.ToFrom = ts, AlertsToEnv
	return nil
}
