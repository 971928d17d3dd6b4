/**
 * Handlers of the incident routes: the public feed and the operators' ingest.
 * The lifecycle, matching and visibility rules are the domain's
 * (IncidentService); these only pass the decoded request and map errors.
 */
import type { IncidentTier } from "@ratings/domain/incidents/IncidentTier"
import { FeedLimitDefault } from "@ratings/domain/model/Incident"
import { IncidentService } from "@ratings/domain/services/IncidentService"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { ValidationError } from "../api/Errors.ts"
import { AdminRequiredError, AdminTokenMissingError } from "../api/IncidentsApi.ts"
import { currentCaller } from "./EntityHandlers.ts"
import { mapReadErrors } from "./ErrorMapping.ts"

export const IncidentHandlers = HttpApiBuilder.group(
  RatingsApi,
  "incidents",
  Effect.fnUntraced(function* (handlers) {
    const incidents = yield* IncidentService
    return handlers
      .handle("feed", ({ query, request }) =>
        Effect.flatMap(currentCaller(request), (caller) =>
          incidents.feed(
            {
              ...(query.slug === undefined ? {} : { slug: query.slug }),
              ...(query.since === undefined ? {} : { since: query.since }),
              // The contract checked it is one of the tiers.
              min_status: (query.min_status ?? "confirmed") as IncidentTier,
              limit: query.limit ?? FeedLimitDefault,
              offset: query.offset ?? 0
            },
            caller
          )
        ).pipe(
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
