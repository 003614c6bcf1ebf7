package demoserver_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// A test starts a server, points its client at URL() with one of the demo
// keys, and compares what the client shows with the ground truth.
func ExampleStart() {
	s, err := demoserver.Start(demoserver.Options{
		Now:       time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Contracts: 500,
		Threshold: -1, // no pacing: this example is not about it
	})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	req, _ := http.NewRequest("GET", s.URL()+"/api/v0/users/current/", nil)
	req.Header.Set("Authorization", "Bearer "+demoserver.KeyNoBilling)
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()

	week := demoserver.Filter{Gte: s.Now().Add(-7 * 24 * time.Hour).Unix(), Lte: s.Now().Unix()}
	fmt.Println(resp.StatusCode, s.Requests()[0].KeyName, len(s.Contracts(week)) > 0)
	// Output: 200 nobilling true
}
