/**
 * What the front door learned of a request before the router saw it: set by
 * the lane of cache hits when it hands a request over, read by the router's
 * middleware, so that nothing is read or counted twice. It travels on the
 * request itself (Node builds every request of the server as a
 * FrontDoorRequest), typed, for the life of that request only.
 */
import { IncomingMessage } from "node:http"
import type { HttpServerRequest } from "effect/http"
import type { Decision } from "../admission/Admission.ts"
import type { CacheVersions } from "../cache/ResponseCache.ts"

export interface Handoff {
  /** The versions read for the request, from a query sent after it began. */
  readonly versions?: CacheVersions | undefined
  /** The admission decision made for the request (caller, allowance), for the router to enact as made. */
  readonly admission?: Decision | undefined
}

/** Node's request, with the front door's handoff (the server's `IncomingMessage` class). */
export class FrontDoorRequest extends IncomingMessage {
  handoff: Handoff | undefined = undefined
}

/** The handoff of a request the front door handed over, if any. */
export const handoffOf = (request: HttpServerRequest.HttpServerRequest): Handoff | undefined =>
  request.source instanceof FrontDoorRequest ? request.source.handoff : undefined
