package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// Bounds of the notification catalogue. The real catalogue has a few dozen
// types with short names; anything far beyond is a broken or hostile
// server, and the UI lists every type kept.
const (
	// MaxNotificationTypes is how many types NotificationTypes keeps; the
	// rest are counted in Skipped.
	MaxNotificationTypes = 1000
	// maxTypeIdent bounds key, slug and context: they are matched against
	// the preferences document, so a cut one would name the wrong switch;
	// an entry with a longer one is skipped instead.
	maxTypeIdent = 128
	// maxTypeText bounds display_name, topic and category, which are only
	// shown: they are cut.
	maxTypeText = 200
	// maxTypeChannels bounds the default preferences of one type (email
	// and webhooks today).
	maxTypeChannels = 16
)

// NotificationType is one entry of the notification catalogue
// (GET /api/v0/notification-types/): what the preferences document's
// context → type → channel switches mean.
type NotificationType struct {
	Key         string // "client:low_credit"
	Slug        string // "low_credit": the type's name in the preferences document
	Context     string // "client": the context it sits under there
	Topic       string // may be empty
	Category    string // may be empty
	DisplayName string // may be empty: show the key then
	// MandatoryEmail marks a type the platform always sends by e-mail,
	// whatever the preferences say: its email switch is shown locked.
	MandatoryEmail bool
	// Defaults is the channel → on/off a new account starts with; nil
	// when the entry has none.
	Defaults map[string]bool
}

// NotificationCatalogue is the decoded catalogue.
type NotificationCatalogue struct {
	Types []NotificationType // in the server's order
	// Skipped counts entries dropped: malformed ones (a field of the wrong
	// type, no usable key, an identifier over 128 bytes, more than 16
	// channels), repeats of a key already listed, and those beyond
	// MaxNotificationTypes.
	Skipped int
}

// Find returns the type of the preferences document's context and slug.
func (c NotificationCatalogue) Find(context, slug string) (NotificationType, bool) {
	for _, t := range c.Types {
		if t.Context == context && t.Slug == slug {
			return t, true
		}
	}
	return NotificationType{}, false
}

// wireNotificationType is one catalogue entry as sent. Pointers tell a
// missing field from an empty one.
type wireNotificationType struct {
	Key            *string             `json:"key"`
	Slug           *string             `json:"slug"`
	Context        *string             `json:"context"`
	Topic          *string             `json:"topic"`
	Category       *string             `json:"category"`
	DisplayName    *string             `json:"display_name"`
	MandatoryEmail *wireBool           `json:"mandatory_email"`
	Defaults       map[string]wireBool `json:"defaults"`
	DefaultPrefs   map[string]wireBool `json:"default_preferences"`
}

// NotificationTypes reads the notification catalogue
// (GET /api/v0/notification-types/). Needs user_read; calls are paced 2 s
// apart (WithEndpointThreshold). The catalogue only names things: callers
// fall back to the preferences document's raw keys when it fails.
func (c *Client) NotificationTypes(ctx context.Context) (NotificationCatalogue, error) {
	cl := call{
		method: http.MethodGet,
		path:   NotificationTypesPath,
		perm:   "user_read",
		pacer:  c.endpointPacer(NotificationTypesPath),
	}
	return doDecode(ctx, c, cl, c.decodeCatalogue)
}

// decodeCatalogue decodes {"success":..., "notification_types":[...]}.
// Each entry is decoded on its own so one bad entry costs only itself.
func (c *Client) decodeCatalogue(op, perm string, body []byte) (NotificationCatalogue, error) {
	var env struct {
		Success json.RawMessage `json:"success"`
		Types   json.RawMessage `json:"notification_types"`
	}
	if err := decodeEnvelope(op, body, &env); err != nil {
		return NotificationCatalogue{}, err
	}
	if e := c.refusedOK(op, perm, env.Success, body); e != nil {
		return NotificationCatalogue{}, e
	}
	// A key sent twice is skipped like a bad entry: the first one names it.
	seen := map[string]bool{}
	var (
		cat NotificationCatalogue
		err error
	)
	cat.Types, cat.Skipped, err = decodeList(op, env.Types, "notification_types", MaxNotificationTypes,
		func(raw json.RawMessage) (NotificationType, bool) {
			t, ok := notificationType(raw)
			if !ok || seen[t.Key] {
				return NotificationType{}, false
			}
			seen[t.Key] = true
			return t, true
		})
	if err != nil {
		return NotificationCatalogue{}, err
	}
	return cat, nil
}

// notificationType converts one entry; ok is false when it must be
// skipped.
func notificationType(raw json.RawMessage) (NotificationType, bool) {
	var w wireNotificationType
	if raw[0] != '{' || json.Unmarshal(raw, &w) != nil {
		return NotificationType{}, false
	}
	t := NotificationType{
		Key: deref(w.Key), Slug: deref(w.Slug), Context: deref(w.Context),
		Topic:       cutString(deref(w.Topic), maxTypeText),
		Category:    cutString(deref(w.Category), maxTypeText),
		DisplayName: cutString(deref(w.DisplayName), maxTypeText),
	}
	// The key is "context:slug"; either side fills in what is missing.
	if ctx, slug, ok := strings.Cut(t.Key, ":"); ok {
		t.Context = cmp.Or(t.Context, ctx)
		t.Slug = cmp.Or(t.Slug, slug)
	}
	if t.Key == "" && t.Context != "" && t.Slug != "" {
		t.Key = t.Context + ":" + t.Slug
	}
	if t.Key == "" || t.Context == "" || t.Slug == "" ||
		len(t.Key) > maxTypeIdent || len(t.Context) > maxTypeIdent || len(t.Slug) > maxTypeIdent {
		return NotificationType{}, false
	}
	if w.MandatoryEmail != nil {
		t.MandatoryEmail = bool(*w.MandatoryEmail)
	}
	defaults := w.Defaults
	if defaults == nil {
		defaults = w.DefaultPrefs
	}
	if len(defaults) > maxTypeChannels {
		return NotificationType{}, false
	}
	if defaults != nil {
		t.Defaults = make(map[string]bool, len(defaults))
		for ch, on := range defaults {
			if ch == "" || len(ch) > maxTypeIdent {
				return NotificationType{}, false
			}
			t.Defaults[ch] = bool(on)
		}
	}
	return t, true
}

// decodeEnvelope unmarshals an object body into env (whose fields should
// be json.RawMessage, which take any value), reporting a body that is not
// a JSON object as ErrMalformed.
func decodeEnvelope(op string, body []byte, env any) error {
	if msg := checkObject(body); msg != "" {
		return malformedMsg(op, msg)
	}
	if err := json.Unmarshal(body, env); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			// Cannot happen with RawMessage fields; reported plainly.
			return malformedMsg(op, "the response has the wrong shape")
		}
		return malformed(op, err, len(body))
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
