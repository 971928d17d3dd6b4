/**
 * What the lane of cache hits reports of each answer it writes, so that the
 * path production traffic takes stays visible: the request metrics (the same
 * series the router's middleware records) when metrics are on, and a server
 * span like the router's when a tracer is installed and the request is sampled
 * (a `traceparent` that says not sampled is honoured).
 */
import type { IncomingMessage } from "node:http"
import { performance } from "node:perf_hooks"
import { Clock, Context, Exit, Option, Tracer } from "effect"
import { Headers, HttpTraceContext } from "effect/http"
import { UnmatchedRoute, type RequestMetrics } from "./Metrics.ts"

/** Reports one lane answer: its route template, status, and start (a `performance.now()` reading). */
export type LaneObserver = (
  request: IncomingMessage,
  route: string | undefined,
  status: number,
  started: number
) => void

/** The observer of the context's tracer and of `metrics`; undefined when there is nothing to report to. */
export const makeLaneObserver = (
  context: Context.Context<never>,
  metrics: RequestMetrics["Service"] | undefined
): LaneObserver | undefined => {
  const tracer = Context.get(context, Tracer.Tracer)
  const clock = Context.get(context, Clock.Clock)
  const traced = tracer !== Tracer.nativeTracer
  if (metrics === undefined && !traced) return undefined
  return (request, route, status, started) => {
    metrics?.record(route ?? UnmatchedRoute, "GET", status, started)
    if (!traced) return
    const parent = HttpTraceContext.fromHeaders(Headers.fromInput(request.headers as Record<string, string>))
    if (Option.isSome(parent) && !parent.value.sampled) return
    const ended = clock.currentTimeNanosUnsafe()
    const span = tracer.span({
      name: "http.server GET",
      parent,
      annotations: Context.empty(),
      links: [],
      startTime: ended - BigInt(Math.round((performance.now() - started) * 1e6)),
      kind: "server",
      root: Option.isNone(parent),
      sampled: true
    })
    span.attribute("http.request.method", "GET")
    span.attribute("url.path", (request.url ?? "/").split("?")[0]!)
    if (route !== undefined) span.attribute("http.route", route)
    span.attribute("http.response.status_code", status)
    span.attribute("ratings.answered_by", "lane")
    span.end(ended, Exit.void)
  }
}
