/**
 * What the lane of cache hits hands the router with a request, carried by the
 * request itself: Node's HTTP server builds each request as a
 * FrontDoorRequest (its `IncomingMessage` option), whose `handoff` a lane
 * fills before it hands the request over, and a handler reads through
 * `handoffOf` from the server request's `source`.
 */
import { IncomingMessage } from "node:http"
import type { HttpServerRequest } from "effect/http"
import type { DrawnAhead } from "../RateLimit.ts"
import type { CacheVersions } from "../ResponseCache.ts"

/** What a lane learned of a request before handing it over, so that the router need not learn it again. */
export interface Handoff {
  /** The cache versions read for the request after it began. */
  versions?: CacheVersions | undefined
  /** The caller's rate-limit draw, made ahead, which the router's check concludes. */
  drawn?: DrawnAhead | undefined
}

/** A request as Node's HTTP server of the front door builds it: with its handoff, none until a lane gives one. */
export class FrontDoorRequest extends IncomingMessage {
  handoff: Handoff | undefined = undefined
}

/** The handoff of a server request that came through the front door; undefined for any other or none given. */
export const handoffOf = (request: HttpServerRequest.HttpServerRequest): Handoff | undefined =>
  request.source instanceof FrontDoorRequest ? request.source.handoff : undefined
