/**
 * The body a request may declare: a Content-Length larger than its route
 * takes (the API's MaxRequestBodyBytes, or a path's own limit) is a 413 at
 * once, before the lane of cache hits and the router, without reading the
 * body, and the connection is closed.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { BodyTooLargeDetail, MaxRequestBodyBytes } from "../RouterFallbacks.ts"
import { closeGently } from "./RawAnswers.ts"

/** A path (without query) whose route reads at most `maxBytes` of body instead of MaxRequestBodyBytes. */
export interface PathBodyLimit {
  readonly path: string
  readonly maxBytes: number
}

/** The body limits of a server, looked up per request: the smallest, and each path's own with its 413. */
export interface BodyLimits {
  readonly smallest: number
  readonly byPath: ReadonlyMap<string, { readonly maxBytes: number; readonly detail: string }>
}

export const bodyLimitsOf = (paths: ReadonlyArray<PathBodyLimit>): BodyLimits => ({
  smallest: Math.min(MaxRequestBodyBytes, ...paths.map((p) => p.maxBytes)),
  byPath: new Map(
    paths.map((p) => [
      p.path,
      { maxBytes: p.maxBytes, detail: `request body too large: ${p.path} takes at most ${p.maxBytes} bytes` }
    ])
  )
})

const pathOf = (url: string): string => {
  // An absolute-form target (`POST http://host/path`) names the same route as its path.
  const path = url.startsWith("/") ? url : url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "")
  const end = path.search(/[?#]/)
  return end === -1 ? path : path.slice(0, end)
}

/** The 413 of a request whose declared Content-Length is over its route's limit; undefined for the others. */
export const declaredTooLarge = (request: IncomingMessage, limits: BodyLimits): string | undefined => {
  const declared = request.headers["content-length"]
  // Node has checked it is a number; under the smallest limit (most requests), no path to look at.
  if (declared === undefined || !(Number(declared) > limits.smallest)) return undefined
  const own = limits.byPath.size === 0 ? undefined : limits.byPath.get(pathOf(request.url ?? "/"))
  if (own !== undefined) return Number(declared) > own.maxBytes ? own.detail : undefined
  return Number(declared) > MaxRequestBodyBytes ? BodyTooLargeDetail : undefined
}

/** Node's own fields its `finish` listener reads to decide whether to read the rest of a body and to close. */
type Internals = { _consuming: boolean; _last: boolean }

/**
 * Answers 413 and closes the connection without reading the body: a client
 * declaring more than the route takes gets its answer at once instead of the
 * server waiting for (or reading) bytes it would refuse anyway.
 */
export const refuseBody = (request: IncomingMessage, response: ServerResponse, detail: string): void => {
  const body = JSON.stringify({ detail })
  // Before Node's own `finish` listener, which would read the rest of the body, then destroy the socket at once.
  response.prependListener("finish", () => {
    if (request.complete || request.destroyed) return
    ;(request as unknown as Internals)._consuming = true
    ;(response as unknown as Internals)._last = false
    closeGently(request.socket as Socket)
  })
  response.writeHead(413, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "access-control-allow-origin": "*",
    connection: "close"
  })
  response.end(body)
}
