package api

import "time"

// Paths of the endpoints beyond charges, account and preferences, as the
// public docs write them (with the trailing slash).
const (
	// SettingsPath is PUT /api/v0/users/: changes account settings.
	SettingsPath = "/api/v0/users/"
	// NotificationTypesPath is GET /api/v0/notification-types/: the
	// catalogue of notification types.
	NotificationTypesPath = "/api/v0/notification-types/"
	// InstancesPath is GET /api/v1/instances/: the account's instances.
	InstancesPath = "/api/v1/instances/"
	// VolumesPath is GET /api/v0/volumes/: the account's volumes, local
	// and network.
	VolumesPath = "/api/v0/volumes/"
	// EndpointJobsPath is GET /api/v0/endptjobs/: the serverless
	// endpoints.
	EndpointJobsPath = "/api/v0/endptjobs/"
	// WorkerGroupsPath is GET /api/v0/workergroups/: the endpoints'
	// worker groups.
	WorkerGroupsPath = "/api/v0/workergroups/"
	// EndpointWorkersPath is POST /get_endpoint_workers/ on the
	// autoscaler (AutoscalerURL, or the base URL when it is not the
	// default): an endpoint's workers and their traffic.
	EndpointWorkersPath = "/get_endpoint_workers/"
	// PriceIncreasesPath is GET /api/v0/instances/pending-price-increases/:
	// the hosts' price increases waiting for an answer.
	PriceIncreasesPath = "/api/v0/instances/pending-price-increases/"
	// AcceptPriceIncreasePath and RejectPriceIncreasePath are the PUTs
	// that answer one.
	AcceptPriceIncreasePath = "/api/v0/instances/accept-price-increase/"
	RejectPriceIncreasePath = "/api/v0/instances/reject-price-increase/"
)

// The production hosts: the console serves the API, the autoscaler
// (run.vast.ai) the serverless workers' traffic. A client on another base
// URL (a test server, a proxy) sends both to it, as the official CLI does
// with VAST_URL.
const (
	ConsoleURL    = "https://console.vast.ai"
	AutoscalerURL = "https://run.vast.ai"
)

// Default minimum intervals of the endpoints paced apart from charges. The
// server limits each endpoint on its own (api-notes "Beyond the seed").
const (
	DefaultSettingsThreshold          = 5 * time.Second
	DefaultNotificationTypesThreshold = 2 * time.Second
	DefaultInstancesThreshold         = time.Second
	DefaultVolumesThreshold           = 5500 * time.Millisecond
	DefaultEndpointJobsThreshold      = 3 * time.Second
	DefaultWorkerGroupsThreshold      = 2 * time.Second
)

func defaultEndpointThresholds() map[string]time.Duration {
	return map[string]time.Duration{
		SettingsPath:          DefaultSettingsThreshold,
		NotificationTypesPath: DefaultNotificationTypesThreshold,
		InstancesPath:         DefaultInstancesThreshold,
		InvoicesPath:          DefaultInvoicesThreshold,
		VolumesPath:           DefaultVolumesThreshold,
		EndpointJobsPath:      DefaultEndpointJobsThreshold,
		WorkerGroupsPath:      DefaultWorkerGroupsThreshold,
		WebhooksPath:          DefaultWebhooksThreshold,
		APIKeysPath:           DefaultAPIKeysThreshold,
	}
}

// Interval is the pace of the endpoint at path as the client keeps it
// now (one request per Interval, its margin apart), 0 when unpaced: an
// answer younger than that is as fresh as a new request could be.
func (c *Client) Interval(path string) time.Duration {
	p := c.endpointPacer(path)
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.interval
}

// endpointPacer is the pacer of the endpoint at path; nil when its pacing
// is off. The map is never written after New, so reading it needs no lock.
func (c *Client) endpointPacer(path string) *pacer { return c.pacers[path] }

// cutString shortens s to at most n bytes without splitting a UTF-8
// sequence: server strings are bounded before they are kept, so a hostile
// megabyte label costs nothing downstream. Display sanitizing stays the
// UI's job, as for charges.
func cutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	// Back up over continuation bytes to the start of the cut rune.
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}
