package api

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
)

// Endpoint is one serverless endpoint of the account. Its api_key (the
// endpoint's own secret) is never kept: the client only learns it, to
// redact it from error texts (see Client.redact).
type Endpoint struct {
	ID    int64
	Name  string // endpoint_name; "" when none
	State string // endpoint_state; "" when not sent
}

// WorkerGroup is one worker group of an endpoint; its api_key is treated
// as an endpoint's.
type WorkerGroup struct {
	ID         int64
	EndpointID int64 // 0 when not sent
}

// Worker is one worker of an endpoint as the autoscaler reports it.
type Worker struct {
	// ID is the worker's instance id.
	ID int64
	// Status is the autoscaler's word: idle means ready (loaded, waiting
	// for requests), not unused.
	Status string
	// CurLoad, CurLoadRollingAvg and ReqsWorking are its traffic; all three
	// 0 is no traffic.
	CurLoad, CurLoadRollingAvg float64
	ReqsWorking                int64
}

// ServerlessList is the answer of a list of endpoints, worker groups or
// workers: the entries kept and the count of those dropped (a missing or
// bad id, a field of the wrong type, a value out of bounds, beyond
// MaxLimit entries).
type ServerlessList[T any] struct {
	Items   []T
	Skipped int
}

// Serverless bounds.
const (
	maxEndpointNameLen = 256
	maxWorkerStatusLen = 32
	// maxLoad bounds a worker's load figures: they count tokens or
	// requests per second, far below this.
	maxLoad = 1e12
	// maxReqs bounds the requests one worker has in flight.
	maxReqs = 1_000_000_000
)

type wireEndpoint struct {
	ID     *wireID `json:"id"`
	Name   *string `json:"endpoint_name"`
	State  *string `json:"endpoint_state"`
	APIKey *string `json:"api_key"`
}

type wireWorkerGroup struct {
	ID         *wireID `json:"id"`
	EndpointID wireID  `json:"endpoint_id"`
	APIKey     *string `json:"api_key"`
}

type wireWorker struct {
	ID                *wireID  `json:"id"`
	Status            *string  `json:"status"`
	CurLoad           *float64 `json:"cur_load"`
	CurLoadRollingAvg *float64 `json:"cur_load_rolling_avg"`
	ReqsWorking       wireID   `json:"reqs_working"`
}

// Endpoints reads the account's serverless endpoints (GET
// /api/v0/endptjobs/). Needs misc; calls are paced 3 s apart
// (WithEndpointThreshold).
func (c *Client) Endpoints(ctx context.Context) (ServerlessList[Endpoint], error) {
	cl := call{method: http.MethodGet, path: EndpointJobsPath, perm: "misc", pacer: c.endpointPacer(EndpointJobsPath)}
	return doDecode(ctx, c, cl, func(op, perm string, body []byte) (ServerlessList[Endpoint], error) {
		return decodeServerless(c, op, perm, body, []string{"results"}, func(raw json.RawMessage) (Endpoint, bool) {
			var w wireEndpoint
			if raw[0] != '{' || json.Unmarshal(raw, &w) != nil || w.ID == nil || *w.ID <= 0 {
				return Endpoint{}, false
			}
			c.learnSecret(deref(w.APIKey))
			return Endpoint{
				ID:    int64(*w.ID),
				Name:  cutString(deref(w.Name), maxEndpointNameLen),
				State: cutString(deref(w.State), maxStatusLen),
			}, true
		})
	})
}

// WorkerGroups reads the endpoints' worker groups (GET
// /api/v0/workergroups/; the list is in results, or in workergroups: the
// shape is undocumented). Needs misc; calls are paced 2 s apart
// (WithEndpointThreshold).
func (c *Client) WorkerGroups(ctx context.Context) (ServerlessList[WorkerGroup], error) {
	cl := call{method: http.MethodGet, path: WorkerGroupsPath, perm: "misc", pacer: c.endpointPacer(WorkerGroupsPath)}
	return doDecode(ctx, c, cl, func(op, perm string, body []byte) (ServerlessList[WorkerGroup], error) {
		return decodeServerless(c, op, perm, body, []string{"results", "workergroups"}, func(raw json.RawMessage) (WorkerGroup, bool) {
			var w wireWorkerGroup
			if raw[0] != '{' || json.Unmarshal(raw, &w) != nil || w.ID == nil || *w.ID <= 0 || w.EndpointID < 0 {
				return WorkerGroup{}, false
			}
			c.learnSecret(deref(w.APIKey))
			return WorkerGroup{ID: int64(*w.ID), EndpointID: int64(w.EndpointID)}, true
		})
	})
}

// EndpointWorkers asks the autoscaler for the workers of endpoint id and
// their traffic: POST /get_endpoint_workers/ with {"id": id}, to
// AutoscalerURL, or to the base URL when it is not ConsoleURL (as the
// official CLI does with VAST_URL). The answer is a bare list, or
// {"workers": [...]}; {"error_msg": "..."} is ErrBadRequest with its words.
func (c *Client) EndpointWorkers(ctx context.Context, id int64) (ServerlessList[Worker], error) {
	if id <= 0 {
		return ServerlessList[Worker]{}, usageErr(http.MethodPost+" "+EndpointWorkersPath, "the endpoint id must be positive")
	}
	cl := call{
		method: http.MethodPost,
		path:   EndpointWorkersPath,
		base:   c.run,
		body:   []byte(`{"id":` + strconv.FormatInt(id, 10) + `}`),
		perm:   "misc",
	}
	return doDecode(ctx, c, cl, c.decodeWorkers)
}

// decodeWorkers decodes a bare list of workers or {"workers": [...]}.
func (c *Client) decodeWorkers(op, perm string, body []byte) (ServerlessList[Worker], error) {
	list := json.RawMessage(bytes.TrimSpace(body))
	switch {
	case len(list) == 0 || list[0] == '<':
		return ServerlessList[Worker]{}, malformedMsg(op, checkObject(body))
	case list[0] == '{':
		var env struct {
			Success  json.RawMessage `json:"success"`
			Workers  json.RawMessage `json:"workers"`
			ErrorMsg json.RawMessage `json:"error_msg"`
		}
		if err := decodeEnvelope(op, body, &env); err != nil {
			return ServerlessList[Worker]{}, err
		}
		if msg := jsonText(env.ErrorMsg); msg != "" {
			return ServerlessList[Worker]{}, &Error{Kind: ErrBadRequest, Op: op, Status: http.StatusOK, Msg: c.clean(msg, 200)}
		}
		if e := c.refusedOK(op, perm, env.Success, body); e != nil {
			return ServerlessList[Worker]{}, e
		}
		list = env.Workers
	case list[0] != '[':
		return ServerlessList[Worker]{}, malformedMsg(op, "the response is neither a list of workers nor an object holding one")
	}
	var l ServerlessList[Worker]
	var err error
	l.Items, l.Skipped, err = decodeList(op, list, "workers", MaxLimit, worker)
	return l, err
}

// worker converts one entry; ok is false when it must be skipped.
func worker(raw json.RawMessage) (Worker, bool) {
	var w wireWorker
	if raw[0] != '{' || json.Unmarshal(raw, &w) != nil || w.ID == nil || *w.ID <= 0 {
		return Worker{}, false
	}
	load := func(f *float64) (float64, bool) {
		if f == nil {
			return 0, true
		}
		return *f, *f >= 0 && *f <= maxLoad && !math.IsNaN(*f)
	}
	cur, ok1 := load(w.CurLoad)
	avg, ok2 := load(w.CurLoadRollingAvg)
	if !ok1 || !ok2 || w.ReqsWorking < 0 || w.ReqsWorking > maxReqs {
		return Worker{}, false
	}
	return Worker{
		ID:                int64(*w.ID),
		Status:            cutString(deref(w.Status), maxWorkerStatusLen),
		CurLoad:           cur,
		CurLoadRollingAvg: avg,
		ReqsWorking:       int64(w.ReqsWorking),
	}, true
}

// decodeServerless decodes {"success": …, "<field>": [...]} for the first
// of fields present, each entry through conv.
func decodeServerless[T any](c *Client, op, perm string, body []byte, fields []string, conv func(json.RawMessage) (T, bool)) (ServerlessList[T], error) {
	var env map[string]json.RawMessage
	if err := decodeEnvelope(op, body, &env); err != nil {
		return ServerlessList[T]{}, err
	}
	if e := c.refusedOK(op, perm, env["success"], body); e != nil {
		return ServerlessList[T]{}, e
	}
	field := fields[0]
	for _, f := range fields {
		if _, ok := env[f]; ok {
			field = f
			break
		}
	}
	var l ServerlessList[T]
	var err error
	l.Items, l.Skipped, err = decodeList(op, env[field], field, MaxLimit, conv)
	return l, err
}
