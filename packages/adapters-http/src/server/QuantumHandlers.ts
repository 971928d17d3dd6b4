/**
 * Handlers of the quantum-readiness routes. A read never waits on the
 * upstream: it serves the stored snapshot (QuantumService); refreshing it is
 * the refresher's job.
 */
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { mapReadErrors } from "./ErrorMapping.ts"

export const QuantumHandlers = HttpApiBuilder.group(
  RatingsApi,
  "quantum",
  Effect.fnUntraced(function* (handlers) {
    const quantum = yield* QuantumService
    return handlers
      .handle("leagueTable", () => mapReadErrors(quantum.leagueTable))
      .handle("chain", ({ params }) => mapReadErrors(quantum.chain(params.slug)))
  })
)
