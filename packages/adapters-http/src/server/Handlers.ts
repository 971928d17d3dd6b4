/**
 * Handlers of the ratings API: each decodes nothing itself (the contract did),
 * calls a use case of the domain, and returns its value. The server side of
 * the ValidationErrors middleware (422 on any decode failure) and of
 * FiniteNumbers (422 on a body number beyond a double) are provided here, so
 * every group of the contract gets them.
 */
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { AlertRuleHandlers } from "./AlertRuleHandlers.ts"
import { EntityHandlers } from "./EntityHandlers.ts"
import { FiniteNumbersLive, ValidationErrorsLive } from "./ErrorMapping.ts"
import { IncidentHandlers } from "./IncidentHandlers.ts"
import { QuantumHandlers } from "./QuantumHandlers.ts"
import { UtilityHandlers } from "./UtilityHandlers.ts"

export const SystemHandlers = HttpApiBuilder.group(RatingsApi, "system", (handlers) =>
  Effect.succeed(handlers.handle("health", () => Effect.succeed({ status: "ok" as const })))
)

export const MethodologyHandlers = HttpApiBuilder.group(
  RatingsApi,
  "methodology",
  Effect.fnUntraced(function* (handlers) {
    const reader = yield* RatingsReader
    return handlers.handle("methodology", () => Effect.orDie(reader.methodology()))
  })
)

export const Handlers = Layer.mergeAll(
  SystemHandlers,
  MethodologyHandlers,
  EntityHandlers,
  IncidentHandlers,
  QuantumHandlers,
  UtilityHandlers,
  AlertRuleHandlers
).pipe(Layer.provide([ValidationErrorsLive, FiniteNumbersLive]))
