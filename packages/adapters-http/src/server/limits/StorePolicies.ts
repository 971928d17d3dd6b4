/**
 * The shared store's settings that hold without it: how long a call may take,
 * the kinds of limit and what each does while the store cannot be reached.
 * Kept apart from the store (SharedStore.ts re-exports them) so that reading
 * the configuration loads no Redis client and no HTTP server.
 */
import { Duration } from "effect"

/**
 * How long a call to the shared store may take before it counts as failed
 * (and the outage begins). Redis answers a counter's script in well under a
 * millisecond on a local network; this leaves room for a pause of the
 * store or of this process under load (a false outage lets requests through
 * for a probe's interval), and bounds what the first requests of an outage wait.
 */
export const DefaultStoreTimeout = Duration.millis(250)

/**
 * The kinds of limit, each with its own choice when the shared store cannot
 * be reached: the request rate (per key, admin or anonymous address), failed
 * credentials (per address), coverage requests and MCP sessions (per address).
 */
export const LimitKinds = ["requests", "failedCredentials", "contacts", "mcpSessions"] as const
export type LimitKind = (typeof LimitKinds)[number]

/** open: served as if the limit were not there; closed: refused with 503 until the store answers again. */
export type StoreFailurePolicy = "open" | "closed"
export type StoreFailurePolicies = { readonly [K in LimitKind]: StoreFailurePolicy }

/**
 * Reads stay up through an outage of the store (the request rate, MCP
 * sessions); a coverage request, a form anyone may post that writes a row, is
 * refused until the limit can hold. Failed credentials fail open: closed
 * would refuse every key and token for the outage's length.
 */
export const DefaultStoreFailurePolicies: StoreFailurePolicies = {
  requests: "open",
  failedCredentials: "open",
  contacts: "closed",
  mcpSessions: "open"
}
