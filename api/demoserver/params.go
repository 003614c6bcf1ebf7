package demoserver

import (
	"net/http"
	"net/url"
	"strconv"
)

// The query parameters every paged endpoint reads the same way: a bad one
// is answered with the server's 400 here, and ok is false.

// queryLimit reads limit: def when absent, else an integer from 1 to most.
func queryLimit(w http.ResponseWriter, q url.Values, def, most int) (limit int, ok bool) {
	v := q.Get("limit")
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		writeError(w, http.StatusBadRequest, "", "limit must be an integer from 1 to "+strconv.Itoa(most)+".")
		return 0, false
	}
	return n, true
}

// queryLatestFirst reads latest_first: true when absent.
func queryLatestFirst(w http.ResponseWriter, q url.Values) (latest, ok bool) {
	v := q.Get("latest_first")
	if v == "" {
		return true, true
	}
	if latest, ok = parseBool(v); !ok {
		writeError(w, http.StatusBadRequest, "", "latest_first must be true or false.")
	}
	return latest, ok
}
