/**
 * Handlers of the ratings API: each decodes nothing itself (the contract did),
 * calls a use case of the domain, and returns its value. The server side of
 * the ValidationErrors middleware (422 on any decode failure) and of
 * FiniteNumbers (422 on a body number beyond a double) are provided here, so
 * every group of the contract gets them.
 */
import { Readiness } from "@ratings/domain/ports/Readiness"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Duration, Effect, Layer } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { NotReadyError, NotReadyReasons, ReadinessTimeoutSeconds } from "../api/SystemApi.ts"
import { optionalCache, successCodecOf } from "./CachedRoutes.ts"
import { NoStore } from "./Caching.ts"
import { AlertRuleHandlers } from "./AlertRuleHandlers.ts"
import { ContactHandlers } from "./ContactHandlers.ts"
import { currentCaller, EntityHandlers } from "./EntityHandlers.ts"
import { FiniteNumbersLive, ValidationErrorsLive } from "./ErrorMapping.ts"
import { IncidentHandlers } from "./IncidentHandlers.ts"
import { QuantumHandlers } from "./QuantumHandlers.ts"
import { UtilityHandlers } from "./UtilityHandlers.ts"

/**
 * /ready: a `SELECT 1` (the Readiness port) within a short timeout, answered
 * fresh every time (`Cache-Control: no-store`, never from the response cache)
 * so no cache between the probe and the process hides an outage.
 */
const ready = (probe: Effect.Effect<void, unknown>) =>
  Effect.gen(function* () {
    yield* HttpEffect.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", NoStore))
    )
    yield* probe.pipe(
      Effect.mapError(() => new NotReadyError({ detail: NotReadyReasons[0] })),
      Effect.timeoutOrElse({
        duration: Duration.seconds(ReadinessTimeoutSeconds),
        orElse: () => Effect.fail(new NotReadyError({ detail: NotReadyReasons[1] }))
      })
    )
    return { status: "ready" as const }
  })

export const SystemHandlers = HttpApiBuilder.group(
  RatingsApi,
  "system",
  Effect.fnUntraced(function* (handlers) {
    const readiness = yield* Readiness
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () => ready(readiness.check))
  })
)

/**
 * The methodology shows every type's question count: through the response
 * cache (when the server has one) it is stamped with every type's version,
 * which a catalogue's replacement bumps, and is the same for every caller.
 */
export const MethodologyHandlers = HttpApiBuilder.group(
  RatingsApi,
  "methodology",
  Effect.fnUntraced(function* (handlers) {
    const reader = yield* RatingsReader
    const cache = yield* optionalCache
    const schema = successCodecOf("methodology", "methodology")
    const [type, ...also] = EntityTypes
    return handlers.handle("methodology", ({ request }) => {
      const compute = () => Effect.orDie(reader.methodology())
      if (cache === undefined) return compute()
      return Effect.flatMap(currentCaller(request), (caller) =>
        cache.respond({ caller, key: "methodology", type, also, schema, compute, entityOf: () => undefined })
      )
    })
  })
)

export const Handlers = Layer.mergeAll(
  SystemHandlers,
  MethodologyHandlers,
  EntityHandlers,
  IncidentHandlers,
  QuantumHandlers,
  UtilityHandlers,
  AlertRuleHandlers,
  ContactHandlers
).pipe(Layer.provide([ValidationErrorsLive, FiniteNumbersLive]))
