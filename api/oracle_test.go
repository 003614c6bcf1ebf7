package api

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/vastdash/vastdash/money"
)

// A reference decoder for the charges page built on encoding/json, used to
// check the hand-written one (pageparse.go) on valid input: both must agree
// on every entry they accept.

type oracleCharge struct {
	Start       oracleTime     `json:"start"`
	End         oracleTime     `json:"end"`
	Type        string         `json:"type"`
	Source      string         `json:"source"`
	Description string         `json:"description"`
	Amount      money.Amount   `json:"amount"`
	Metadata    oracleMeta     `json:"metadata"`
	Items       []oracleCharge `json:"items"`
}

type oracleMeta struct {
	Label         string `json:"label"`
	TemplateID    wireID `json:"template_id"`
	EndpointID    wireID `json:"endpoint_id"`
	WorkergroupID wireID `json:"workergroup_id"`
}

func (w *oracleCharge) charge() Charge {
	c := Charge{
		Start: int64(w.Start), End: int64(w.End),
		Type: w.Type, Source: w.Source, Description: w.Description,
		Amount: w.Amount,
		Meta: Metadata{
			Label:         w.Metadata.Label,
			TemplateID:    int64(w.Metadata.TemplateID),
			EndpointID:    int64(w.Metadata.EndpointID),
			WorkergroupID: int64(w.Metadata.WorkergroupID),
		},
	}
	if len(w.Items) > 0 {
		c.Items = make([]Charge, len(w.Items))
		for i := range w.Items {
			c.Items[i] = w.Items[i].charge()
		}
	}
	return c
}

// oracleTime accepts any number and truncates, like intValue(false).
type oracleTime int64

func (t *oracleTime) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*t = oracleTime(v)
		return nil
	}
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	if f < math.MinInt64 || f >= math.MaxInt64 {
		return errNotInteger
	}
	*t = oracleTime(int64(f))
	return nil
}

// oracleEntry decodes one raw entry the encoding/json way; ok is false
// when the entry would be skipped.
func oracleEntry(raw json.RawMessage) (Charge, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return Charge{}, false
	}
	var w oracleCharge
	if json.Unmarshal(raw, &w) != nil {
		return Charge{}, false
	}
	return w.charge(), true
}
