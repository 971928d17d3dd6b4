/**
 * Handlers of the incident routes: the public feed and the operators' ingest.
 * The lifecycle, matching and visibility rules are the domain's
 * (IncidentService); these only pass the decoded request and map errors.
 *
 * The feed goes through the ResponseCache when the server has one
 * (docs/adr/0007-projection-cache.md): keyed by its parameters and the
 * caller's projection class (an admin's feed, which shows incidents as
 * stored, is never cached), stamped with the incidents' version (bumped by
 * every ingest that writes) and the protocols' (the feed names a protocol
 * only while the public can read it, so hiding one, or a publish, changes it).
 */
import type { IncidentTier } from "@ratings/domain/incidents/IncidentTier"
import { FeedLimitDefault, type IncidentFeedQuery } from "@ratings/domain/model/Incident"
import { IncidentService } from "@ratings/domain/services/IncidentService"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { ValidationError } from "../api/Errors.ts"
import { AdminRequiredError, AdminTokenMissingError } from "../api/IncidentsApi.ts"
import { optionalCache, successCodecOf } from "./CachedRoutes.ts"
import { currentCaller } from "./EntityHandlers.ts"
import { mapReadErrors } from "./ErrorMapping.ts"

interface FeedParameters {
  readonly slug?: string | undefined
  readonly since?: string | undefined
  readonly min_status?: string | undefined
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

/** The query the service receives, defaults applied (so `?limit=20` and no limit share an entry). */
const feedQueryOf = (query: FeedParameters): IncidentFeedQuery => ({
  ...(query.slug === undefined ? {} : { slug: query.slug }),
  ...(query.since === undefined ? {} : { since: query.since }),
  // The contract checked it is one of the tiers.
  min_status: (query.min_status ?? "confirmed") as IncidentTier,
  limit: query.limit ?? FeedLimitDefault,
  offset: query.offset ?? 0
})

const feedKey = (query: IncidentFeedQuery): string =>
  `incidents|${JSON.stringify([query.slug ?? null, query.since ?? null, query.min_status, query.limit, query.offset])}`

export const IncidentHandlers = HttpApiBuilder.group(
  RatingsApi,
  "incidents",
  Effect.fnUntraced(function* (handlers) {
    const incidents = yield* IncidentService
    const cache = yield* optionalCache
    const feedCodec = successCodecOf("incidents", "feed")
    return handlers
      .handle("feed", ({ query, request }) =>
        Effect.flatMap(currentCaller(request), (caller) => {
          const feedQuery = feedQueryOf(query)
          const compute = () => incidents.feed(feedQuery, caller)
          return cache === undefined
            ? compute()
            : cache.respond({
                caller,
                key: feedKey(feedQuery),
                type: "incident",
                also: ["protocol"],
                schema: feedCodec,
                compute,
                entityOf: () => undefined
              })
        }).pipe(
          Effect.catchTag("InvalidIncidentFeedQuery", (e) =>
            Effect.fail(
              new ValidationError({
                detail: [{ type: "value_error", loc: ["query"], msg: e.message, input: null }]
              })
            )
          ),
          mapReadErrors
        )
      )
      .handle("ingest", ({ payload, request }) =>
        Effect.gen(function* () {
          const caller = yield* currentCaller(request)
          if (caller._tag === "Anonymous") return yield* AdminTokenMissingError.instance
          if (caller._tag !== "Admin") return yield* AdminRequiredError.instance
          const result = yield* incidents.ingest(payload).pipe(
            Effect.catchTag("InvalidIncidentReport", (e) =>
              Effect.fail(
                new ValidationError({
                  detail: [{ type: "value_error", loc: ["body"], msg: e.message, input: null }]
                })
              )
            ),
            mapReadErrors
          )
          yield* Effect.logInfo("incident report ingested", {
            admin: caller.subject,
            outcome: result.outcome,
            incident_id: result.incident_id
          })
          return {
            outcome: result.outcome,
            incident_id: result.incident_id,
            status: result.status,
            served: result.served ?? null
          }
        })
      )
  })
)
