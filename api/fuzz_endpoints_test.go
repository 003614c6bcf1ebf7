package api

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// checkFuzzErr fails unless err is nil or an *Error whose text does not
// hold the fuzz client's key.
func checkFuzzErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not an *Error", err)
	}
	if strings.Contains(err.Error(), "fuzz-key") {
		t.Fatalf("the key reached the error: %v", err)
	}
}

// FuzzDecodeCatalogue: any catalogue body gives types within their bounds
// or an *Error, never a panic.
func FuzzDecodeCatalogue(f *testing.F) {
	for _, s := range []string{
		`{"success":true,"notification_types":[{"key":"client:low_credit","display_name":"Low","mandatory_email":true,"defaults":{"email":true}}]}`,
		`{"notification_types":[{"slug":"a","context":"b","default_preferences":{"email":0}},null,7]}`,
		`{"success":false,"msg":"fuzz-key"}`, `{"notification_types":{}}`, `[]`, `<html>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cat, err := fuzzClient(t, body).decodeCatalogue("GET x", "user_read", body)
		checkFuzzErr(t, err)
		if len(cat.Types) > MaxNotificationTypes {
			t.Fatalf("%d types", len(cat.Types))
		}
		for _, ty := range cat.Types {
			if ty.Key == "" || ty.Context == "" || ty.Slug == "" || len(ty.Key) > maxTypeIdent ||
				len(ty.DisplayName) > maxTypeText || len(ty.Defaults) > maxTypeChannels {
				t.Fatalf("out of bounds: %+v", ty)
			}
		}
	})
}

// FuzzDecodeInstances: any instances body gives instances within their
// bounds or an *Error, never a panic.
func FuzzDecodeInstances(f *testing.F) {
	for _, s := range []string{
		`{"instances":[{"id":1,"actual_status":"running","num_gpus":2,"dph_total":0.4213333,"storage_total_cost":0.01,"start_date":1772000000.5}],"next_token":"x","total_instances":1}`,
		`{"instances":[{"id":2.0,"dph_total":1e-7},{"id":"3"},null],"next_token":null}`,
		`{"success":false,"error":"fuzz-key"}`, `{"instances":[],"total_instances":-1}`, `{}`, `<html>`,
	} {
		f.Add([]byte(s))
	}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Unix()
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := fuzzClient(t, body).decodeInstances("GET x", "instance_read", body, now)
		checkFuzzErr(t, err)
		if len(p.Results) > MaxLimit {
			t.Fatalf("%d instances", len(p.Results))
		}
		for _, in := range p.Results {
			if in.ID <= 0 || in.NumGPUs < 0 || in.NumGPUs > maxNumGPUs || in.DPHTotal < 0 || in.DPHTotal > MaxRate ||
				in.StorageTotalCost < 0 || in.StorageTotalCost > MaxRate || len(in.Label) > maxLabelLen ||
				(in.StartDate != 0 && (in.StartDate < minStartDate || in.StartDate > now+startDateSlack)) {
				t.Fatalf("out of bounds: %+v", in)
			}
		}
	})
}

// FuzzCheckUpdated: any answer to the settings PUT is accepted or an
// *Error, never a panic.
func FuzzCheckUpdated(f *testing.F) {
	for _, s := range []string{``, `{"success":true}`, `{"success":false,"msg":"fuzz-key"}`, `true`, `<html>`, `{"success":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFuzzErr(t, fuzzClient(t, body).checkUpdated("PUT x", "user_write", body))
	})
}
