// Command credit is the yardstick of `vastdash credit`: a plain Go program
// making the same request (GET /api/v0/users/current/ with the key from
// VAST_API_KEY, to the base URL in argv[1]), decoding the credit and
// printing it. It is what the Go runtime, net/http and encoding/json cost
// with nothing else; the start-up benchmarks run it beside vastdash.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

func main() {
	req, err := http.NewRequest(http.MethodGet, os.Args[1]+"/api/v0/users/current/", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	req.Header.Set("Authorization", "Bearer "+os.Getenv("VAST_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	var u struct {
		Credit float64 `json:"credit"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&u); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("$%.2f\n", u.Credit)
}
