package notices

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// gateway502 answers a PUT with a gateway's HTML page, after the server
// applied it when applied.
func gateway502(path string, applied bool) demoserver.Fault {
	return demoserver.Fault{Method: http.MethodPut, Path: path, Applied: applied, Status: http.StatusBadGateway,
		ContentType: "text/html", Body: "<html><h1>502 Bad Gateway</h1></html>"}
}

// Issue 27 item 9: a 5xx after the request was sent is an unknown outcome,
// like a timeout: the server is read again and the outcome says whether
// the change took — for the switches and the threshold alike.
func TestSaveAnswered5xxIsReadAgain(t *testing.T) {
	for _, applied := range []bool{true, false} {
		srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
		id := srv.UserID()
		srv.AddFault(gateway502("/api/v0/users/"+itoa(id)+"/notification-prefs", applied))
		srv.AddFault(gateway502("/api/v0/users", applied))
		want := map[bool]Outcome{true: Saved, false: Differs}[applied]

		res, err := SaveSwitches(context.Background(), s, id, []Switch{{Path: api.LowCreditWebhooks, On: true}}, false)
		on, _ := res.Prefs.Get(api.LowCreditWebhooks)
		if !errors.Is(err, api.ErrServer) || !res.Lost || res.Outcome != want || on != applied {
			t.Errorf("applied %v: switches %+v (webhooks %v), %v", applied, res, on, err)
		}
		a := money.Amount(25_000)
		th, err := SaveThreshold(context.Background(), s, ThresholdChange{Amount: &a})
		if !errors.Is(err, api.ErrServer) || !th.Lost || !th.Read || th.Outcome != want || (th.Held().Amount == a) != applied {
			t.Errorf("applied %v: threshold %+v, %v", applied, th, err)
		}
	}
}

// Issue 27 item 10: the threshold and switches asked for together. A
// switch that cannot be saved for a reason known before any write (one the
// document does not hold) saves neither; switches the server refuses after
// the threshold was saved are an error naming what was saved.
func TestSaveAlertsBothOrNeitherOrSaysWhich(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	id := srv.UserID()
	a := money.Amount(25_000)
	ch := AlertsChange{Threshold: &ThresholdChange{Amount: &a}, Switches: []Switch{{Path: api.PrefPath{"client", "instance_outbd", "email"}}}}
	_, err := SaveAlerts(context.Background(), s, id, ch)
	if !errors.Is(err, ErrNoSuchSwitch) {
		t.Fatalf("a switch the document does not hold: %v", err)
	}
	for _, q := range srv.Requests() {
		if q.Method == http.MethodPut {
			t.Fatalf("a PUT was sent though the change could not be made whole: %s %s", q.Path, q.Body)
		}
	}

	srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: "/api/v0/users/" + itoa(id) + "/notification-prefs", Status: http.StatusBadRequest,
		Body: `{"success":false,"error":"bad_request","msg":"webhooks are not configured"}`})
	ch.Switches = []Switch{{Path: api.LowCreditWebhooks, On: true}}
	res, err := SaveAlerts(context.Background(), s, id, ch)
	if !errors.Is(err, ErrPartial) || !errors.Is(err, api.ErrBadRequest) || res.Threshold.Outcome != Saved || !res.SwitchesSent || res.Switches.Outcome != Failed {
		t.Fatalf("switches refused after the threshold: %+v, %v", res, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "the low-balance threshold ($25.00, enabled) was saved; the switches were not: ") ||
		!strings.Contains(msg, "webhooks are not configured") {
		t.Fatalf("the error does not name what was saved: %q", msg)
	}
	if th, _ := srv.BalanceThreshold(); th != 25_000 {
		t.Fatalf("the server holds %d", th)
	}

	// A threshold save refused: the switches are not sent.
	srv.ClearFaults()
	srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: "/api/v0/users", Status: http.StatusBadRequest, Body: `{"success":false,"msg":"no"}`})
	before := len(srv.Requests())
	res, err = SaveAlerts(context.Background(), s, id, ch)
	if err == nil || res.SwitchesSent || !strings.Contains(err.Error(), "the switches were not sent") {
		t.Fatalf("threshold refused: %+v, %v", res, err)
	}
	for _, q := range srv.Requests()[before:] {
		if q.Method == http.MethodPut && strings.Contains(q.Path, "notification-prefs") {
			t.Fatal("the switches were sent after the threshold was refused")
		}
	}
}
