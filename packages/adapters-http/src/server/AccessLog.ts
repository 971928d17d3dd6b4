/**
 * The access log: one line per answered request (`GET /api/v1/protocols 200
 * 0.41ms`, ending in ` lane` when the lane of cache hits answered), the path
 * without its query string, gathered and written once per turn of the event
 * loop. A failed request whose cause is more than a client going away is also
 * logged with its cause.
 */
import { performance } from "node:perf_hooks"
import { type Cause, Context, Effect } from "effect"
import { HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"

export interface AccessLog {
  /**
   * Logs one answered request; `started` is `performance.now()` when it
   * arrived; `lane`: answered by the lane of cache hits (HitLane.ts).
   */
  readonly line: (method: string, url: string, status: number, started: number, lane?: boolean) => void
}

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`)

/** `[HH:MM:SS.mmm]` in local time, as Effect's logger stamps its lines. */
const stamp = (date: Date): string =>
  `[${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${three(date.getMilliseconds())}]`

/** The logged path: the request target without its query string or fragment. */
const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

export const formatAccessLine = (
  now: Date,
  method: string,
  url: string,
  status: number,
  ms: number,
  lane = false
): string =>
  `${stamp(now)} INFO (access): ${method} ${pathOf(url)} ${status} ${ms.toFixed(2)}ms${lane ? " lane" : ""}\n`

/** An access log written to `write` (standard output by default), one write per event-loop turn. */
export const makeAccessLog = (
  write: (text: string) => void = (text) => process.stdout.write(text)
): AccessLog => {
  let pending = ""
  let scheduled = false
  const flush = () => {
    scheduled = false
    const text = pending
    pending = ""
    if (text !== "") write(text)
  }
  return {
    line: (method, url, status, started, lane) => {
      pending += formatAccessLine(new Date(), method, url, status, performance.now() - started, lane)
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    }
  }
}

/** Whether a failure's cause says more than "the client went away" (then it is logged with its cause). */
const worthLogging = (cause: Cause.Cause<unknown>): boolean =>
  !cause.reasons.every(
    (reason) => reason._tag === "Interrupt" && reason.annotations.has(HttpServerError.ClientAbort.key)
  )

/** The server middleware that logs each request's answer on `log`. */
export const accessLogMiddleware =
  (log: AccessLog | undefined) =>
  <E, R>(httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.withFiber((fiber) => {
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const started = performance.now()
      return Effect.flatMap(Effect.exit(httpApp), (exit) => {
        if (exit._tag === "Success") {
          log?.line(request.method, request.url, exit.value.status, started)
          return exit
        }
        const [response, cause] = HttpServerError.causeResponseStripped(exit.cause)
        log?.line(request.method, request.url, response.status, started)
        return cause._tag === "Some" && worthLogging(cause.value)
          ? Effect.andThen(
              Effect.annotateLogs(Effect.log(cause.value), {
                "http.method": request.method,
                "http.url": pathOf(request.url),
                "http.status": response.status
              }),
              exit
            )
          : exit
      })
    })
