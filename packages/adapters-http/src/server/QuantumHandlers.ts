/**
 * Handlers of the quantum-readiness routes. A read never waits on the
 * upstream: it serves the stored snapshot (QuantumService); refreshing it is
 * the refresher's job. Both go through the ResponseCache when the server has
 * one (docs/adr/0007-projection-cache.md), keyed by the caller's projection
 * class like every cached read; an admin's read is computed.
 */
import type { Caller } from "@ratings/domain/model/Caller"
import { QuantumService, type Timed } from "@ratings/domain/services/QuantumService"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { optionalCache, successCodecOf } from "./CachedRoutes.ts"
import { currentCaller } from "./EntityHandlers.ts"
import { mapReadErrors } from "./ErrorMapping.ts"
import type { ResponseCache } from "./cache/ResponseCache.ts"

/**
 * A timed quantum read through the cache (its value, or the cached response),
 * or computed without one. An entry is stamped with the quantum version
 * (bumped by every snapshot saved and refresh outcome recorded) and the
 * chains' (rows are matched against the chain directory on each read), and
 * kept no later than the snapshot's expiry, when the stale flag flips with
 * the clock alone.
 */
const timedRead = <A, E>(
  cache: ResponseCache["Service"] | undefined,
  caller: Caller,
  endpoint: { readonly key: string; readonly schema: ReturnType<typeof successCodecOf> },
  read: Effect.Effect<Timed<A>, E>
) => {
  const compute = () => Effect.map(read, (timed) => timed.value)
  if (cache === undefined) return compute()
  // The expiry travels from the computation to the entry beside the value, never in the body.
  let changesAt: number | undefined
  return cache.respond({
    caller,
    key: endpoint.key,
    type: "quantum",
    also: ["chain"],
    schema: endpoint.schema,
    compute: () =>
      Effect.map(read, (timed) => {
        changesAt = timed.changesAt
        return timed.value
      }),
    entityOf: () => undefined,
    expiresAt: () => changesAt
  })
}

export const QuantumHandlers = HttpApiBuilder.group(
  RatingsApi,
  "quantum",
  Effect.fnUntraced(function* (handlers) {
    const quantum = yield* QuantumService
    const cache = yield* optionalCache
    const leagueCodec = successCodecOf("quantum", "leagueTable")
    const chainCodec = successCodecOf("quantum", "chain")
    return handlers
      .handle("leagueTable", ({ request }) =>
        mapReadErrors(
          Effect.flatMap(currentCaller(request), (caller) =>
            timedRead(cache, caller, { key: "quantum|league", schema: leagueCodec }, quantum.leagueTableTimed)
          )
        )
      )
      .handle("chain", ({ params, request }) =>
        mapReadErrors(
          Effect.flatMap(currentCaller(request), (caller) =>
            timedRead(
              cache,
              caller,
              { key: `quantum|chain|${params.slug}`, schema: chainCodec },
              quantum.chainTimed(params.slug)
            )
          )
        )
      )
  })
)
