// Package demoserver is an in-process fake of the Vast.ai billing, account
// and notification-preferences API, served over HTTP on the loopback
// interface from a deterministic generated data set.
//
// It exists for two reasons:
//
//   - `vastdash --demo` points the real client at it, so the dashboard can be
//     tried without an account, a key or a network;
//   - the tests of every other package use it as an oracle: the server knows
//     the exact ground truth ([Server.Contracts], [Server.Tree],
//     [Server.Credit]), records every request it received
//     ([Server.Requests]) and can be told to misbehave ([Fault]).
//
// It deliberately does not import the client package (api): it is written
// from the specification alone, so a misunderstanding in the client cannot be
// mirrored here and silently pass.
//
// # Endpoints
//
// All paths are accepted with and without a trailing slash:
//
//	GET      /api/v0/charges                        needs billing_read (paced)
//	GET      /api/v0/users/current                  needs user_read
//	GET      /api/v0/users/{id}/notification-prefs  needs user_read
//	PUT      /api/v0/users/{id}/notification-prefs  needs user_write
//	PUT      /api/v0/users                          needs user_write (paced, 5 s)
//	GET      /api/v0/notification-types             needs user_read (paced, 2 s)
//	GET      /api/v1/instances                      needs instance_read (paced, 1 s)
//	GET      /api/v1/invoices                       needs billing_read (paced, 3 s)
//	GET      /api/v0/webhooks                       needs user_read (paced, 2 s, one budget
//	POST     /api/v0/webhooks                       needs user_write  for every webhooks path)
//	PUT      /api/v0/webhooks/{id}                  needs user_write
//	DELETE   /api/v0/webhooks/{id}                  needs user_write
//	POST     /api/v0/webhooks/{id}/rotate-secret    needs user_write
//	POST     /api/v0/webhooks/{id}/test             needs user_write
//	GET      /api/v0/auth/apikeys                   needs user_read
//	POST     /api/v0/auth/apikeys                   needs user_write
//	DELETE   /api/v0/auth/apikeys/{id}              needs user_write
//
// PUT /api/v0/users changes the low-balance threshold that users/current
// serves; it takes balance_threshold and balance_threshold_enabled only and
// refuses any other field with 400. The notification catalogue names every
// type of the preferences document. Instances are the data set's running
// instance contracts and recently ended ones that keep their disk (exited,
// stopped), newest first, 25 a page. A key made through the API-keys
// endpoint ({"name", "permissions": {"api": {category: {}}}}; a key cannot
// grant a category it lacks) works at once, and stops working when
// deleted; [Server.CreatedKeys] lists them. The demo keys (DemoKey,
// KeyNoBilling, KeyReadOnly, KeyNoAccount, KeyScoped) hold one set of
// permissions each.
//
// Webhooks: at most 4 per account (the fifth create is a 400
// webhook_limit); a create or an update is checked as the notes say (name
// up to 120 characters, an https URL up to 2,048 characters without
// credentials, not a private or loopback address, at least one event of
// the catalogue) and any other field is refused. The signing secret is
// sent by create and rotate-secret only. A test delivery reaches any host
// but those under .invalid (no answer) and those whose name starts with
// "fail" (HTTP 500). The demo starts with two webhooks ([Server.Webhooks],
// [Server.SetWebhooks]).
//
// # Order of checks
//
// Every request is handled in this order; the first step that answers wins.
// Latency ([Options.Latency] ± [Options.Jitter], [Server.SetLatency]) is
// waited just before the answer is written, after pacing has recorded the
// arrival, like the real server's processing time.
//
//  1. Faults ([Server.AddFault]) are checked in the order added. A matching
//     fault answers before routing, authentication and pacing, so "429 for
//     ten seconds" or "hang" works for any key, even without one.
//  2. Routing: unknown path 404, wrong method 405 (with an Allow header).
//  3. Request bodies over [MaxBodyBytes]: 400.
//  4. Authentication: no Authorization header 403, unknown or revoked key 404.
//  5. Permission of a scoped key: 401 permission_denied.
//  6. Pacing (charges, and each endpoint marked paced above on its own
//     budget): a request closer than the endpoint's threshold to the
//     previous accepted request of the same key to the same endpoint gets
//     a 429. Only accepted requests restart the interval, so a client
//     hammering the server gets through again once it waits a full
//     threshold after its last success. A request that passes pacing counts
//     as accepted even if its parameters are then rejected with 400.
//  7. The endpoint's own validation and answer.
//
// # Money
//
// Amounts are int64 thousandths of a dollar everywhere in this package. On the
// wire they are written from those integers as JSON numbers with at most three
// decimals (12.345, 0.5, 3.0), never through float formatting, and each
// contract's amount is the exact sum of its items' amounts. An amount is the
// contract's total, as the specification says, unless
// [Options.WindowAmounts] asks for the rule clients report of the live API:
// only what fell inside the queried window.
package demoserver
