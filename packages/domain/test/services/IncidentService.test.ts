import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { IncidentFeedQuery } from "../../src/model/Incident.ts"
import { IncidentService } from "../../src/services/IncidentService.ts"
import { report } from "../incidents/IncidentFixtures.ts"

const everyTier = Schema.decodeUnknownSync(IncidentFeedQuery)({ min_status: "rumored" })
const defaults = Schema.decodeUnknownSync(IncidentFeedQuery)({})

/**
 * What only the service does. Every other rule of ingest and the feed is the
 * IncidentService contract (test/support/contract/events-incident-service.ts),
 * run over memory in test/ports/memory/IncidentRepositoryMemory.test.ts.
 */
describe("IncidentService", () => {
  it.effect("ingest refuses a report that does not validate", () =>
    Effect.gen(function* () {
      const service = yield* IncidentService
      const error = yield* Effect.flip(service.ingest({ ...report(), first_seen_at: "2026-08-01T00:00:00" }))
      assert.strictEqual(error._tag, "InvalidIncidentReport")
      const page = yield* service.feed(everyTier)
      assert.strictEqual(page.total, 0)
    }).pipe(Effect.provide(IncidentService.layerTest))
  )

  it.effect("the feed refuses a since whose '+' arrived as a space", () =>
    Effect.gen(function* () {
      const service = yield* IncidentService
      const error = yield* Effect.flip(service.feed({ ...defaults, since: "2026-08-01T00:00:00 00:00" }))
      assert.strictEqual(error._tag, "InvalidIncidentFeedQuery")
    }).pipe(Effect.provide(IncidentService.layerTest))
  )
})
