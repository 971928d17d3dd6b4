/**
 * Server bugs the fuzzer found that are reported and not fixed yet, each
 * allowed as narrowly as it shows: the exact response for the exact kind of
 * request. A response they excuse is counted and printed with the run, never
 * silently passed, and every allowance goes once the server is fixed (the
 * count then drops to 0: delete the entry).
 */
import type { FuzzRequest } from "./Requests.ts"
import type { RawResponse } from "./Transport.ts"

export interface KnownBug {
  readonly id: string
  readonly description: string
  readonly excuses: (request: FuzzRequest, response: RawResponse) => boolean
}

/**
 * Empty: the three the fuzzer found first (a bare 404 for unroutable segments, a raw `;` cutting
 * the path, a text/plain 415) are fixed by server/RouterFallbacks.ts and documented on every
 * operation (api/RouterResponses.ts).
 */
export const KnownBugs: ReadonlyArray<KnownBug> = []
