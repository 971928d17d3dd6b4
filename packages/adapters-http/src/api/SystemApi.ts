/**
 * Host-root routes for probes, outside the rate limit and the caller policies:
 * `/health` (spec part 4 "Methodology and health": 200 with a minimal
 * payload, no runtime configuration exposed) is liveness, the process is up;
 * `/ready` is readiness, the process can serve because its database answers
 * (a load balancer sends traffic only while it is 200).
 */
import { ErrorReporter, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { documentExamples } from "./Examples.ts"

export const HealthBody = Schema.Struct({
  status: Schema.Literal("ok")
}).annotate({ identifier: "HealthBody", description: "The service is up" })

export const ReadyBody = Schema.Struct({
  status: Schema.Literal("ready")
}).annotate({ identifier: "ReadyBody", description: "The service can serve: its database answered" })

/** How long /ready waits for the database before answering 503. */
export const ReadinessTimeoutSeconds = 2

export const NotReadyReasons = [
  "not ready: the database is unreachable",
  `not ready: the database did not answer within ${ReadinessTimeoutSeconds} seconds`
] as const

export const NotReadyBody = Schema.Struct({
  detail: Schema.Literals(NotReadyReasons)
}).annotate({
  identifier: "NotReadyBody",
  description:
    "503: the database cannot be reached now; nothing of the failure or the configuration is shown",
  examples: [{ detail: NotReadyReasons[0] }]
})

/** 503 `{"detail": "not ready: ..."}` of /ready. Not logged: a probe repeats it every few seconds. */
export class NotReadyError extends Schema.Error<NotReadyError>("NotReadyError")(NotReadyBody, {
  httpApiStatus: 503,
  description: "Not ready: the database is unreachable or too slow; take this process out of rotation"
}) {
  override readonly [ErrorReporter.ignore] = true
}

export class SystemApi extends HttpApiGroup.make("system", { topLevel: true })
  .add(
    HttpApiEndpoint.get("health", "/health", { success: HealthBody }).annotateMerge(
      OpenApi.annotations({ transform: documentExamples({ responses: { 200: { status: "ok" } } }) })
    )
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready", { success: ReadyBody, error: NotReadyError }).annotateMerge(
      OpenApi.annotations({
        transform: documentExamples({
          responses: { 200: { status: "ready" }, 503: { detail: NotReadyReasons[0] } }
        })
      })
    )
  ) {}
