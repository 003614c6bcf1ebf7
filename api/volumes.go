package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// Volume is what vastdash keeps of one volume of the account.
type Volume struct {
	ID     int64
	Label  string // "" when none
	Status string
	// Type is local_volume or network_volume when the server says ("" when
	// not).
	Type string
	// DiskSpace is its size in thousandths of a GB.
	DiskSpace Milli
	// StorageTotalCost is what it costs per hour (by analogy with an
	// instance's field of the same name: show figures built on it as
	// estimates); StorageKnown is false when the server sent none (null or
	// absent): unknown, not 0.
	StorageTotalCost Rate
	StorageKnown     bool
	StartDate        int64 // unix seconds; 0 when unknown
	// Instances are the ids of the instances it is attached to; Attached
	// says whether the server sent the list at all (a volume whose list is
	// missing is not known to be orphaned).
	Instances []int64
	Attached  bool
}

// Orphan reports a volume attached to nothing: it pays storage for
// nothing. A volume whose list of instances was not sent is not one.
func (v Volume) Orphan() bool { return v.Attached && len(v.Instances) == 0 }

// VolumesList is the answer of GET /api/v0/volumes/.
type VolumesList struct {
	Volumes []Volume
	// Skipped counts entries dropped for a missing or bad id, a field of
	// the wrong type or a value out of bounds (a rate above $10,000/h or
	// negative, a size above a petabyte, a start date before 2015 or in the
	// future, more than maxAttached instances), and entries beyond MaxLimit.
	Skipped int
}

// Volume bounds.
const (
	maxVolumeTypeLen = 32
	// maxAttached bounds one volume's list of instances: a network volume
	// may serve many, not thousands.
	maxAttached = 1024
)

type wireVolume struct {
	ID               *wireID          `json:"id"`
	Label            *string          `json:"label"`
	Status           *string          `json:"status"`
	Type             *string          `json:"type"`
	DiskSpace        wireMilli        `json:"disk_space"`
	StorageTotalCost *wireRate        `json:"storage_total_cost"` // nil: not sent
	StartDate        *float64         `json:"start_date"`
	Instances        *json.RawMessage `json:"instances"`
}

// Volumes reads every volume of the account, local and network
// (owner=me, type=all_volume: local_volume alone misses network volumes).
// Needs instance_read; calls are paced 5.5 s apart (WithEndpointThreshold).
func (c *Client) Volumes(ctx context.Context) (VolumesList, error) {
	v := url.Values{}
	v.Set("owner", "me")
	v.Set("type", "all_volume")
	cl := call{
		method: http.MethodGet,
		path:   VolumesPath,
		query:  v.Encode(),
		perm:   "instance_read",
		pacer:  c.endpointPacer(VolumesPath),
	}
	return doDecode(ctx, c, cl, func(op, perm string, body []byte) (VolumesList, error) {
		return c.decodeVolumes(op, perm, body, time.Now().Unix())
	})
}

// decodeVolumes decodes {"volumes": [...]}; now bounds start dates.
func (c *Client) decodeVolumes(op, perm string, body []byte, now int64) (VolumesList, error) {
	var env struct {
		Success json.RawMessage `json:"success"`
		Volumes json.RawMessage `json:"volumes"`
	}
	if err := decodeEnvelope(op, body, &env); err != nil {
		return VolumesList{}, err
	}
	if e := c.refusedOK(op, perm, env.Success, body); e != nil {
		return VolumesList{}, e
	}
	var l VolumesList
	var err error
	l.Volumes, l.Skipped, err = decodeList(op, env.Volumes, "volumes", MaxLimit,
		func(raw json.RawMessage) (Volume, bool) { return volume(raw, now) })
	return l, err
}

// volume converts one entry; ok is false when it must be skipped.
func volume(raw json.RawMessage, now int64) (Volume, bool) {
	var w wireVolume
	if raw[0] != '{' || json.Unmarshal(raw, &w) != nil || w.ID == nil || *w.ID <= 0 {
		return Volume{}, false
	}
	v := Volume{
		ID:        int64(*w.ID),
		Label:     cutString(deref(w.Label), maxLabelLen),
		Status:    cutString(deref(w.Status), maxStatusLen),
		Type:      cutString(deref(w.Type), maxVolumeTypeLen),
		DiskSpace: Milli(w.DiskSpace),
	}
	v.StorageTotalCost, v.StorageKnown = storageCost(w.StorageTotalCost)
	var ok bool
	if v.StartDate, ok = startDate(w.StartDate, now); !ok {
		return Volume{}, false
	}
	if w.Instances != nil && !isNull(*w.Instances) {
		if v.Instances, ok = attached(*w.Instances); !ok {
			return Volume{}, false
		}
		v.Attached = true
	}
	return v, true
}

// attached reads a volume's instances: a list of ids, or of objects with
// an id (the shape is undocumented). ok is false for anything else or a
// list longer than maxAttached.
func attached(raw json.RawMessage) ([]int64, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) > maxAttached {
		return nil, false
	}
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		var id wireID
		if json.Unmarshal(it, &id) != nil {
			var obj struct {
				ID *wireID `json:"id"`
			}
			if json.Unmarshal(it, &obj) != nil || obj.ID == nil {
				return nil, false
			}
			id = *obj.ID
		}
		if id <= 0 {
			return nil, false
		}
		ids = append(ids, int64(id))
	}
	return ids, true
}
