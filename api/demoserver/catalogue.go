package demoserver

import (
	"net/http"
	"strconv"
)

// notificationType is one entry of the demo's notification catalogue.
type notificationType struct {
	context, slug, topic, category, name string
	email, webhooks                      bool // default channel preferences
	mandatoryEmail                       bool
}

// catalogue lists every type of the default preferences document (see
// defaultPrefs), so a client can name each switch it shows; the billing
// events come first after low_credit, as they matter most here.
// payment_failed is mandatory by email: the platform always mails a failed
// payment, whatever the switch says.
var catalogue = [...]notificationType{
	{"client", "low_credit", "billing", "account", "Low credit", true, false, false},
	{"client", "billing_receipt", "billing", "payments", "Payment receipt", true, false, false},
	{"client", "payment_failed", "billing", "payments", "Payment failed", true, true, true},
	{"client", "credit_transfer", "billing", "payments", "Credit transfer received", true, false, false},
	{"client", "instance_status", "instances", "instances", "Instance status changed", true, true, false},
	{"client", "instance_outbid", "instances", "instances", "Instance outbid", true, false, false},
	{"client", "serverless_scaling", "serverless", "instances", "Serverless scaling", false, true, false},
	{"host", "machine_offline", "machines", "hosting", "Machine offline", true, true, false},
	{"host", "payout_sent", "billing", "hosting", "Payout sent", true, false, false},
	{"host", "rental_started", "machines", "hosting", "Rental started", false, false, false},
	{"marketing", "newsletter", "news", "marketing", "Newsletter", false, false, false},
	{"marketing", "product_updates", "news", "marketing", "Product updates", true, false, false},
}

// serveTypes answers GET /api/v0/notification-types/ with the catalogue.
// Odd entries spell their defaults default_preferences and even ones
// defaults, since the docs name both and a client must read either; the
// marketing types have no webhooks channel, like the preferences document.
func (s *Server) serveTypes(w http.ResponseWriter, _ *http.Request, _ string, ki *keyInfo, _ []byte) {
	if th := s.opts.TypesThreshold; !s.paceEndpoint(ki, pathTypes, th) {
		s.write429(w, th)
		return
	}
	b := make([]byte, 0, 4096)
	b = append(b, `{"success":true,"notification_types":[`...)
	for i, t := range catalogue {
		if i > 0 {
			b = append(b, ',')
		}
		name := t.name
		if s.ds().hostile {
			name = hostile(name, int64(10+i))
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(101+i), 10)
		b = append(b, `,"key":`...)
		b = appendString(b, t.context+":"+t.slug)
		b = append(b, `,"slug":`...)
		b = appendString(b, t.slug)
		b = append(b, `,"context":`...)
		b = appendString(b, t.context)
		b = append(b, `,"topic":`...)
		b = appendString(b, t.topic)
		b = append(b, `,"category":`...)
		b = appendString(b, t.category)
		b = append(b, `,"display_name":`...)
		b = appendString(b, name)
		b = append(b, `,"mandatory_email":`...)
		b = strconv.AppendBool(b, t.mandatoryEmail)
		if i%2 == 0 {
			b = append(b, `,"defaults":{"email":`...)
		} else {
			b = append(b, `,"default_preferences":{"email":`...)
		}
		b = strconv.AppendBool(b, t.email)
		if t.context != "marketing" {
			b = append(b, `,"webhooks":`...)
			b = strconv.AppendBool(b, t.webhooks)
		}
		b = append(b, `}}`...)
	}
	b = append(b, "]}"...)
	writeJSON(w, http.StatusOK, b)
}
