package notify

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestParseNamesServiceAndHostOnly(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"ntfy://ntfy.sh/my-secret-topic", "ntfy ntfy.sh"},
		{"discord://SECRETTOKEN@123456789", "discord"},
		{"smtp://user:SECRETPASS@mail.example.com:587/?from=a@example.com&to=b@example.com", "smtp mail.example.com:587"},
		{"generic://127.0.0.1:8080/hook/SECRETPATH?disabletls=yes", "generic 127.0.0.1:8080"},
		{"generic+https://hooks.example.com/SECRETPATH", "generic hooks.example.com"},
		{"telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=@chan", "telegram"},
	} {
		tg, err := Parse(c.url)
		if err != nil {
			t.Errorf("Parse(%s): %v", c.want, err)
			continue
		}
		if got := tg.String(); got != c.want {
			t.Errorf("String = %q, want %q", got, c.want)
		}
	}
}

func TestParseRefusesWithoutShowingTheURL(t *testing.T) {
	for _, raw := range []string{"nope://SECRET@host", "SECRET-no-scheme", "discord://SECRET@"} {
		_, err := Parse(raw)
		if !errors.Is(err, ErrTarget) {
			t.Fatalf("Parse: %v, want ErrTarget", err)
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
}

func TestSendReachesNtfyAndWebhook(t *testing.T) {
	got := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.URL.Path + " " + string(b)
		_, _ = io.WriteString(w, "{}") // ntfy answers with the message as JSON
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, raw := range []string{"ntfy://" + host + "/topic?scheme=http", "generic://" + host + "/hook?disabletls=yes"} {
		tg, err := Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.Send(context.Background(), Message{Title: "t", Body: "runway low"}); err != nil {
			t.Fatalf("Send to %s: %v", tg, err)
		}
		if m := <-got; !strings.Contains(m, "runway low") {
			t.Errorf("%s received %q", tg, m)
		}
	}
}

func TestSendFailureHidesTheToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the send fails with net/http's error, URL and all
	tg, err := Parse("generic://" + addr + "/hooks/SECRETTOKEN?disabletls=yes")
	if err != nil {
		t.Fatal(err)
	}
	err = tg.Send(context.Background(), Message{Body: "x"})
	if err == nil {
		t.Fatal("sent to a closed port")
	}
	if strings.Contains(err.Error(), "SECRETTOKEN") {
		t.Errorf("the error shows the token: %v", err)
	}
}

// An ntfy send leaves nothing running once it returns: shoutrrr makes a
// transport of its own for each target, whose kept-alive connection
// (two goroutines) outlived every send, one more at each alert of serve.
func TestNtfySendLeavesNothingRunning(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	ignore := goleak.IgnoreCurrent()
	tg, err := Parse("ntfy://" + strings.TrimPrefix(srv.URL, "http://") + "/topic?scheme=http")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := tg.Send(context.Background(), Message{Title: "t", Body: "b"}); err != nil {
			t.Fatal(err)
		}
	}
	goleak.VerifyNone(t, ignore)
}
