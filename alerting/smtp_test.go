package alerting

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// smtpInbox is a loopback SMTP server just big enough for one client at
// a time: it keeps each message's data, unfolded (quoted-printable soft
// breaks joined), so a test can look for a sentence in it.
type smtpInbox struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs []string
	wg   sync.WaitGroup
}

func newSMTPInbox(t *testing.T) *smtpInbox {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpInbox{ln: ln}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.serve(c)
		}
	})
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *smtpInbox) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	say("220 localhost ESMTP fake")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 localhost")
		case strings.HasPrefix(cmd, "DATA"):
			say("354 go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			s.mu.Lock()
			s.msgs = append(s.msgs, strings.ReplaceAll(strings.ReplaceAll(b.String(), "=\r\n", ""), "\r\n", "\n"))
			s.mu.Unlock()
			say("250 ok")
		case strings.HasPrefix(cmd, "QUIT"):
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

func (s *smtpInbox) count(want string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.msgs {
		if strings.Contains(m, want) {
			n++
		}
	}
	return n
}

func (s *smtpInbox) url() string {
	return "smtp://vast:SMTPSECRET@" + s.ln.Addr().String() + "/?from=vastdash@example.com&to=me@example.com&auth=None&encryption=None&usestarttls=no"
}
