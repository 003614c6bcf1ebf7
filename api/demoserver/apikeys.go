package demoserver

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

const pathAPIKeys = "/api/v0/auth/apikeys"

// Categories are the permission categories a key may be created with, as
// the provider's permission reference lists them.
var Categories = []string{
	"instance_read", "instance_write", "user_read", "user_write", "billing_read", "billing_write",
	"machine_read", "machine_write", "misc", "team_read", "team_write",
}

// maxKeyName bounds the name of a created key.
const maxKeyName = 256

// CreatedKey is a key made through POST /api/v0/auth/apikeys/, for tests
// to check what a client created, used and deleted.
type CreatedKey struct {
	ID    int64
	Name  string
	Key   string   // the key itself: the demo's keys are no secrets
	Perms []string // sorted
	// Deleted is set once DELETE removed it; it no longer authenticates.
	Deleted bool
}

// NextKeyName is the name the requests of the next key made through the
// API-keys endpoint are recorded under, for a Fault that should hit only
// that key.
func (s *Server) NextKeyName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "created-" + strconv.FormatInt(s.nextKeyID+1, 10)
}

// CreatedKeys returns the keys made through the API-keys endpoint, oldest
// first.
func (s *Server) CreatedKeys() []CreatedKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CreatedKey
	for key, ki := range s.keys {
		if ki.created {
			out = append(out, CreatedKey{ID: ki.id, Name: ki.keyName, Key: key, Perms: sortedPerms(ki.perms), Deleted: ki.deleted})
		}
	}
	slices.SortFunc(out, func(a, b CreatedKey) int { return int(a.ID - b.ID) })
	return out
}

func sortedPerms(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// apiKeysEndpoint routes the API-keys paths: GET (user_read) and POST
// (user_write) on the collection, DELETE (user_write) on one key. found is
// false when p is not one of them; serve is nil for a method the path does
// not take, and allow lists those it does.
func (s *Server) apiKeysEndpoint(p, method string) (perm string, serve handlerFunc, allow string, found bool) {
	if p == pathAPIKeys {
		switch method {
		case http.MethodGet:
			return "user_read", s.serveAPIKeysList, "", true
		case http.MethodPost:
			return "user_write", s.serveAPIKeyCreate, "", true
		}
		return "", nil, "GET, POST", true
	}
	id, ok := strings.CutPrefix(p, pathAPIKeys+"/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", nil, "", false
	}
	if method != http.MethodDelete {
		return "", nil, "DELETE", true
	}
	return "user_write", s.serveAPIKeyDelete, "", true
}

// serveAPIKeyCreate makes a key: the body must be {"name": str,
// "permissions": {"api": {category: {…}, …}}} with known categories, all
// of which the calling key holds (a key cannot grant what it lacks).
func (s *Server) serveAPIKeyCreate(w http.ResponseWriter, _ *http.Request, _ string, ki *keyInfo, body []byte) {
	var req struct {
		Name        *string `json:"name"`
		Permissions struct {
			API map[string]json.RawMessage `json:"api"`
		} `json:"permissions"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "Request body must be a JSON object with name and permissions.")
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, "invalid_request", "Request body has trailing data.")
		return
	}
	if req.Name == nil || *req.Name == "" || len(*req.Name) > maxKeyName {
		writeError(w, http.StatusBadRequest, "invalid_request", "name must be 1 to 256 characters.")
		return
	}
	if len(req.Permissions.API) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_permissions", `permissions must be {"api": {category: {}, ...}} with at least one category.`)
		return
	}
	perms := map[string]bool{}
	var lacking []string
	for p := range req.Permissions.API {
		if !slices.Contains(Categories, p) {
			writeError(w, http.StatusBadRequest, "invalid_permissions", "Unknown permission category "+strconv.Quote(p)+".")
			return
		}
		perms[p] = true
		if !ki.allows(p) {
			lacking = append(lacking, p)
		}
	}
	if len(lacking) > 0 {
		slices.Sort(lacking)
		writeError(w, http.StatusBadRequest, "missing_permissions", "This key cannot grant what it does not have: "+strings.Join(lacking, ", ")+".")
		return
	}
	var raw [12]byte
	_, _ = rand.Read(raw[:])
	s.mu.Lock()
	s.nextKeyID++
	id := s.nextKeyID
	key := "vastdash-demo-created-" + strconv.FormatInt(id, 10) + "-" + hex.EncodeToString(raw[:])
	s.keys[key] = &keyInfo{name: "created-" + strconv.FormatInt(id, 10), perms: perms, id: id, created: true, keyName: *req.Name}
	s.mu.Unlock()

	b := appendKeyInt([]byte{'{'}, "id", id)
	b = append(b, `,"key":`...)
	b = appendString(b, key)
	b = append(b, `,"permissions":`...)
	b = appendPerms(b, perms)
	writeJSON(w, http.StatusOK, append(b, '}'))
}

// appendPerms writes {"api": {"billing_read": {}, …}}, or null for full
// access.
func appendPerms(b []byte, perms map[string]bool) []byte {
	if perms == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"api":{`...)
	for i, p := range sortedPerms(perms) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p)
		b = append(b, ":{}"...)
	}
	return append(b, "}}"...)
}

// serveAPIKeysList lists every key of the account, never a key itself.
func (s *Server) serveAPIKeysList(w http.ResponseWriter, _ *http.Request, _ string, _ *keyInfo, _ []byte) {
	s.mu.Lock()
	infos := make([]*keyInfo, 0, len(s.keys))
	for _, ki := range s.keys {
		if !ki.deleted {
			infos = append(infos, ki)
		}
	}
	slices.SortFunc(infos, func(a, b *keyInfo) int { return int(a.id - b.id) })
	b := []byte(`{"apikeys":[`)
	for i, ki := range infos {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKeyInt(append(b, '{'), "id", ki.id)
		b = appendKeyInt(append(b, ','), "user_id", s.ds().userID)
		b = append(b, `,"rights":`...)
		b = appendPerms(b, ki.perms)
		b = append(b, `,"team_id":null,"team_name":null}`...)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// serveAPIKeyDelete deletes a key by id: it stops working at once.
func (s *Server) serveAPIKeyDelete(w http.ResponseWriter, r *http.Request, _ string, _ *keyInfo, _ []byte) {
	idText := strings.TrimPrefix(normPath(r.URL.Path), pathAPIKeys+"/")
	id, err := strconv.ParseInt(idText, 10, 64)
	s.mu.Lock()
	var found *keyInfo
	for _, ki := range s.keys {
		if err == nil && ki.id == id && !ki.deleted {
			found = ki
		}
	}
	if found != nil {
		found.deleted, found.revoked = true, true
	}
	s.mu.Unlock()
	if found == nil {
		writeError(w, http.StatusNotFound, "not_found", "No API key with that id.")
		return
	}
	writeJSON(w, http.StatusOK, []byte(`{"success":true}`))
}
