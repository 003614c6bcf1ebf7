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
)

// Default minimum intervals of the endpoints paced apart from charges. The
// server limits each endpoint on its own (api-notes "Beyond the seed").
const (
	DefaultSettingsThreshold          = 5 * time.Second
	DefaultNotificationTypesThreshold = 2 * time.Second
	DefaultInstancesThreshold         = time.Second
)

func defaultEndpointThresholds() map[string]time.Duration {
	return map[string]time.Duration{
		SettingsPath:          DefaultSettingsThreshold,
		NotificationTypesPath: DefaultNotificationTypesThreshold,
		InstancesPath:         DefaultInstancesThreshold,
		InvoicesPath:          DefaultInvoicesThreshold,
		WebhooksPath:          DefaultWebhooksThreshold,
	}
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
