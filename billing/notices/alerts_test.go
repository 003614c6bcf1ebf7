package notices

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/demotest"
)

// demo starts the demo server and a service on it.
func demo(t *testing.T) (*demoserver.Server, *billing.Service, *api.Client) {
	t.Helper()
	return demotest.Start(t, demoserver.Options{Contracts: 40, Threshold: -1}, demoserver.DemoKey,
		api.WithChargesThreshold(0), api.WithTimeout(5*time.Second))
}

// The bug that made this layer: a save sent the copy read at start-up, so
// a change made meanwhile elsewhere was silently reverted.
func TestSaveKeepsChangesMadeElsewhere(t *testing.T) {
	srv, s, _ := demo(t)
	ctx := context.Background()
	id := srv.UserID()
	if _, err := ReadPrefs(ctx, s, id); err != nil { // what a screen read at start-up
		t.Fatal(err)
	}

	// Meanwhile the web console (another client) switches another alert
	// and a new category appears.
	other, err := api.New(srv.URL(), demoserver.DemoKey)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := other.NotificationPrefs(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := api.PrefPath{"client", "instance_outbid", "email"}
	added := api.PrefPath{"client", "brand_new_alert", "sms"}
	was, _ := doc.Get(elsewhere)
	doc, _ = doc.With(elsewhere, !was)
	doc, _ = doc.With(added, true)
	if _, err := other.SetNotificationPrefs(ctx, id, doc); err != nil {
		t.Fatal(err)
	}

	on, _ := doc.Get(api.LowCreditEmail)
	res, err := SaveSwitches(ctx, s, id, []Switch{{api.LowCreditEmail, !on}}, false)
	if err != nil || res.Lost || res.Unchanged {
		t.Fatalf("save: %+v %v", res, err)
	}
	held := api.NewPrefs(srv.Prefs())
	if got, _ := held.Get(api.LowCreditEmail); got != !on {
		t.Fatal("the switch was not saved")
	}
	if got, _ := held.Get(elsewhere); got != !was {
		t.Fatal("the save reverted a change made elsewhere")
	}
	if got, ok := held.Get(added); !ok || !got {
		t.Fatal("the save dropped a category added elsewhere")
	}
}

func TestSaveOfWhatIsAlreadyThereSendsNothing(t *testing.T) {
	srv, s, _ := demo(t)
	doc, _ := ReadPrefs(context.Background(), s, srv.UserID())
	on, _ := doc.Get(api.LowCreditWebhooks)
	srv.ResetRequests()
	res, err := SaveSwitches(context.Background(), s, srv.UserID(), []Switch{{api.LowCreditWebhooks, on}}, false)
	if err != nil || !res.Unchanged {
		t.Fatalf("%+v %v", res, err)
	}
	for _, r := range srv.Requests() {
		if r.Method == "PUT" {
			t.Fatal("a save that changes nothing was sent")
		}
	}
}

// A save whose answer is lost may have landed: the result is what the
// server holds after reading it again, never the old copy.
func TestSaveWithUnknownOutcomeReadsAgain(t *testing.T) {
	srv, s, _ := demo(t)
	id := srv.UserID()
	doc, _ := ReadPrefs(context.Background(), s, id)
	on, _ := doc.Get(api.LowCreditEmail)
	srv.AddFault(demoserver.Fault{Method: "PUT", Path: "/api/v0/users/" + itoa(id) + "/notification-prefs", ResetAfterBytes: 3})
	res, err := SaveSwitches(context.Background(), s, id, []Switch{{api.LowCreditEmail, !on}}, false)
	if err == nil || !res.Lost {
		t.Fatalf("%+v %v: want an unknown outcome", res, err)
	}
	if got, ok := res.Prefs.Get(api.LowCreditEmail); !ok || got != !on {
		t.Fatalf("result shows %v (ok %v); the server holds %v", got, ok, !on)
	}
}

func TestSaveRefusesToReplaceANonObject(t *testing.T) {
	srv, s, _ := demo(t)
	id := srv.UserID()
	srv.AddFault(demoserver.Fault{Method: "GET", Path: "/api/v0/users/" + itoa(id) + "/notification-prefs",
		Mutate: func([]byte) []byte {
			return []byte(`{"success":true,"notification_preferences":{"client":5,"host":{}}}`)
		}})
	srv.ResetRequests()
	_, err := SaveSwitches(context.Background(), s, id, []Switch{{api.LowCreditEmail, true}}, false)
	if err == nil || !strings.Contains(err.Error(), "client") {
		t.Fatalf("err %v", err)
	}
	for _, r := range srv.Requests() {
		if r.Method == "PUT" {
			t.Fatal("a document whose client is not an object was replaced")
		}
	}
}

func TestSaveWithoutGETNeedsForce(t *testing.T) {
	srv, s, _ := demo(t)
	srv.SetPrefsGET(false)
	if _, err := SaveSwitches(context.Background(), s, srv.UserID(), []Switch{{api.LowCreditEmail, true}}, false); !errors.Is(err, ErrPrefsUnreadable) {
		t.Fatalf("err %v", err)
	}
	res, err := SaveSwitches(context.Background(), s, srv.UserID(), []Switch{{api.LowCreditEmail, true}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if on, ok := res.Prefs.Get(api.LowCreditEmail); !ok || !on {
		t.Fatalf("forced save: %s", mustJSON(res.Prefs))
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
