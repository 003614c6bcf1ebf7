package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/vastdash/vastdash/sanitize"
)

// APIKeysPath is the API-keys endpoint: POST creates a key, GET lists the
// account's keys; DELETE APIKeysPath+"{id}/" deletes one. Listing needs
// user_read, creating and deleting user_write (the provider's permission
// reference: "user_write: creating/modifying API keys").
const APIKeysPath = "/api/v0/auth/apikeys/"

// DefaultAPIKeysThreshold is the documented minimum interval between calls
// of the API-keys endpoint.
const DefaultAPIKeysThreshold = 2 * time.Second

// Bounds of what the API-keys endpoint may send or be sent.
const (
	// MaxKeyLen bounds a key the server creates: real keys are 64
	// characters; a longer one is not a key.
	MaxKeyLen = 512
	// MaxKeyNameLen bounds the name vastdash gives a key.
	MaxKeyNameLen = 120
	// maxPermissions bounds the permission categories kept of one key.
	maxPermissions = 64
	// maxPermissionLen bounds one category's name.
	maxPermissionLen = 64
	// maxListedKeys bounds the keys kept of one listing.
	maxListedKeys = 1000
)

// CreatedKey is the answer to creating an API key: its id, its
// permissions as the server stated them, and the key itself, which the
// server shows only once. Printing a CreatedKey (any verb, at any depth)
// never shows the key: it is kept in a func, which fmt prints as an
// address; Reveal returns it.
type CreatedKey struct {
	ID int64
	// Permissions are the categories the server says the key has, sorted;
	// nil when the answer named none (PermissionsKnown false).
	Permissions      []string
	PermissionsKnown bool
	key              func() string
}

// NewCreatedKey is the answer to a create holding id, key and
// permissions, as CreateAPIKey returns it: for stand-ins of the API in
// the tests of the layers above.
func NewCreatedKey(id int64, key string, permissions []string) CreatedKey {
	return CreatedKey{ID: id, Permissions: permissions, PermissionsKnown: permissions != nil, key: keyFunc(key)}
}

// Reveal returns the new key, to save it and to send it.
func (k CreatedKey) Reveal() string {
	if k.key == nil {
		return ""
	}
	return k.key()
}

// APIKeyInfo is one key of the account's list: never the key itself.
type APIKeyInfo struct {
	ID int64
	// Rights are the key's permission categories, sorted; nil when the
	// listing did not say them in a shape vastdash reads.
	Rights []string
	// TeamName is the team the key belongs to, sanitized; "" for none.
	TeamName string
}

// CreateAPIKey creates a key named name with exactly the permission
// categories perms (POST /api/v0/auth/apikeys/ with
// {"name": name, "permissions": {"api": {"billing_read": {}, …}}}).
// The answer's key is checked as a key (printable ASCII, no spaces, at
// most MaxKeyLen) before it is returned; it is never part of an error.
// An answer with an id but no usable key is ErrMalformed with that id in
// the CreatedKey: the key was made, and only deleting it helps.
// Needs user_write; paced 2 s apart with the listing and deletes.
func (c *Client) CreateAPIKey(ctx context.Context, name string, perms []string) (CreatedKey, error) {
	const op = http.MethodPost + " " + APIKeysPath
	switch {
	case name == "" || len(name) > MaxKeyNameLen:
		return CreatedKey{}, usageErr(op, "the key's name must be 1 to "+strconv.Itoa(MaxKeyNameLen)+" bytes")
	case len(perms) == 0:
		// An empty permission object may mean full access to the server:
		// never send one by accident.
		return CreatedKey{}, usageErr(op, "a new key needs at least one permission")
	}
	for _, p := range perms {
		if !validPermission(p) {
			return CreatedKey{}, usageErr(op, "unknown permission "+strconv.Quote(sanitize.Short(p, maxPermissionLen)))
		}
	}
	body, err := json.Marshal(createKeyBody(name, perms))
	if err != nil {
		return CreatedKey{}, usageErr(op, "cannot encode the request")
	}
	// once: a create whose request was sent is not repeated, or a lost
	// answer would make a second key.
	cl := call{method: http.MethodPost, path: APIKeysPath, body: body, perm: "user_write", pacer: c.endpointPacer(APIKeysPath), once: true}
	resp, err := c.do(ctx, cl)
	if err != nil {
		return CreatedKey{}, err
	}
	// The body holds the new key: wipe it once decoded.
	defer clear(resp)
	return c.decodeCreatedKey(op, cl.perm, resp)
}

// createKeyRequest is the request: {"name", "permissions": {"api": {cat: {}}}}.
type createKeyRequest struct {
	Name        string                         `json:"name"`
	Permissions map[string]map[string]struct{} `json:"permissions"`
}

func createKeyBody(name string, perms []string) createKeyRequest {
	cats := make(map[string]struct{}, len(perms))
	for _, p := range perms {
		cats[p] = struct{}{}
	}
	return createKeyRequest{Name: name, Permissions: map[string]map[string]struct{}{"api": cats}}
}

// validPermission reports a category name as the docs write them:
// lower-case letters and underscores, bounded.
func validPermission(p string) bool {
	if p == "" || len(p) > maxPermissionLen {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// decodeCreatedKey reads {"id", "key", "permissions"}.
func (c *Client) decodeCreatedKey(op, perm string, body []byte) (CreatedKey, error) {
	if msg := checkObject(body); msg != "" {
		return CreatedKey{}, malformedMsg(op, msg)
	}
	var w struct {
		Success     json.RawMessage `json:"success"`
		ID          *wireID         `json:"id"`
		Key         *string         `json:"key"`
		Permissions json.RawMessage `json:"permissions"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return CreatedKey{}, malformed(op, err, len(body))
	}
	if w.Key != nil && len(*w.Key) <= MaxKeyLen {
		// Server text that quotes the new key later (an error body)
		// must not show it, whatever becomes of this answer.
		c.learnSecret(*w.Key)
	}
	if e := c.refusedOK(op, perm, w.Success, body); e != nil {
		return CreatedKey{}, e
	}
	if w.ID == nil || *w.ID <= 0 {
		return CreatedKey{}, malformedMsg(op, "the new key has no id")
	}
	// From here on the server says it made key id: an answer that is no
	// use still returns the id, so the key can be deleted.
	id := int64(*w.ID)
	switch {
	case w.Key == nil || *w.Key == "":
		return CreatedKey{ID: id}, malformedMsg(op, "the answer holds no key")
	case len(*w.Key) > MaxKeyLen || checkKey(*w.Key) != nil:
		// Never quote it: it may be the key, however odd.
		return CreatedKey{ID: id}, malformedMsg(op, "the answer's key is not a key (too long, spaces or control characters)")
	}
	k := CreatedKey{ID: id, key: keyFunc(*w.Key)}
	k.Permissions, k.PermissionsKnown = permissionNames(w.Permissions)
	return k, nil
}

// permissionNames reads a permission document in the shapes the API uses:
// {"api": {"billing_read": {…}, …}}, a bare {"billing_read": {…}}, a list
// of names, or any of those as JSON text inside a string. Unknown shapes
// (the docs' "false when permissions are disabled") read as not known.
// Names that are not category names are dropped; at most maxPermissions
// are kept.
func permissionNames(raw json.RawMessage) ([]string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var inner string
		if json.Unmarshal(raw, &inner) != nil {
			return nil, false
		}
		raw = bytes.TrimSpace([]byte(inner))
	}
	var names []string
	switch {
	case len(raw) == 0:
		return nil, false
	case raw[0] == '[':
		if json.Unmarshal(raw, &names) != nil {
			return nil, false
		}
	case raw[0] == '{':
		var doc map[string]json.RawMessage
		if json.Unmarshal(raw, &doc) != nil {
			return nil, false
		}
		if api, ok := doc["api"]; ok {
			doc = nil // Unmarshal would merge into the outer document
			if json.Unmarshal(api, &doc) != nil {
				return nil, false
			}
		}
		for n := range doc {
			names = append(names, n)
		}
	default:
		return nil, false
	}
	out := make([]string, 0, min(len(names), maxPermissions))
	for _, n := range names {
		if validPermission(n) && len(out) < maxPermissions {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// APIKeys lists the account's keys (GET /api/v0/auth/apikeys/): ids,
// rights and teams, never a key. At most 1,000 are kept. Needs user_read.
func (c *Client) APIKeys(ctx context.Context) ([]APIKeyInfo, error) {
	cl := call{method: http.MethodGet, path: APIKeysPath, perm: "user_read", pacer: c.endpointPacer(APIKeysPath)}
	return doDecode(ctx, c, cl, c.decodeAPIKeys)
}

func (c *Client) decodeAPIKeys(op, perm string, body []byte) ([]APIKeyInfo, error) {
	if msg := checkObject(body); msg != "" {
		return nil, malformedMsg(op, msg)
	}
	var w struct {
		Success json.RawMessage   `json:"success"`
		Keys    []json.RawMessage `json:"apikeys"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, malformed(op, err, len(body))
	}
	if e := c.refusedOK(op, perm, w.Success, body); e != nil {
		return nil, e
	}
	out := make([]APIKeyInfo, 0, min(len(w.Keys), maxListedKeys))
	for _, raw := range w.Keys {
		if len(out) == maxListedKeys {
			break
		}
		var e struct {
			ID       *wireID         `json:"id"`
			Rights   json.RawMessage `json:"rights"`
			TeamName *string         `json:"team_name"`
		}
		// One entry of the wrong shape costs only itself.
		if json.Unmarshal(raw, &e) != nil || e.ID == nil || *e.ID <= 0 {
			continue
		}
		info := APIKeyInfo{ID: int64(*e.ID)}
		info.Rights, _ = permissionNames(e.Rights)
		if e.TeamName != nil {
			info.TeamName = sanitize.Short(*e.TeamName, 120)
		}
		out = append(out, info)
	}
	return out, nil
}

// DeleteAPIKey deletes the key id (DELETE /api/v0/auth/apikeys/{id}/).
// A key already gone is ErrNotFound. Needs user_write.
func (c *Client) DeleteAPIKey(ctx context.Context, id int64) error {
	path := APIKeysPath + strconv.FormatInt(id, 10) + "/"
	if id <= 0 {
		return usageErr(http.MethodDelete+" "+path, "no key id")
	}
	cl := call{method: http.MethodDelete, path: path, perm: "user_write", pacer: c.endpointPacer(APIKeysPath)}
	body, err := c.do(ctx, cl)
	if err != nil {
		return err
	}
	return c.checkUpdated(cl.op(), cl.perm, body)
}
