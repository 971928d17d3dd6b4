/**
 * The behaviour of the ExportLog port (spec part 8: 5 exports per rolling 24
 * hours, counted in the log that also records each export's watermark), run
 * against every implementation: over memory in the domain's
 * test/ports/memory/ExportLogMemory.test.ts, over Postgres in adapters-sql's
 * PgExportLog.test.ts.
 */
import { assert } from "@effect/vitest"
import { isoTimestamp } from "../../../src/model/Primitives.ts"
import { ExportLog, type ExportRecord } from "../../../src/ports/ExportLog.ts"
import { Effect, Option } from "effect"
import { contract, type Target } from "./ratings-harness.ts"
import { uuid } from "./ratings-fixtures.ts"

const HOUR = 3_600_000
/** In the service's wire form, as Postgres reads it back. */
const at = (hours: number) => isoTimestamp(Date.parse("2026-08-01T00:00:00Z") + hours * HOUR)

export const exportRecord = (n: number, hours: number, over: Partial<ExportRecord> = {}): ExportRecord => ({
  export_id: uuid(n, 5),
  account_id: "acct-1",
  key_id: "key-1",
  entity_type: "protocol",
  format: "csv",
  fields: ["slug", "grade"],
  row_count: 120,
  created_at: at(hours),
  ...over
})

export const exportLogContract = <D>(target: Target<ExportLog, D>) =>
  contract("ExportLog contract", target, (test) => {
    test("an export is recorded while the account made fewer than the quota since the window start", () =>
      Effect.gen(function* () {
        const log = yield* ExportLog
        for (let i = 0; i < 3; i++) {
          assert.deepStrictEqual(yield* log.recordWithinQuota(exportRecord(i, i), at(-24), 3), {
            recorded: true
          })
        }
      }))

    test("at the quota the export is refused, with the oldest export inside the window", () =>
      Effect.gen(function* () {
        const log = yield* ExportLog
        for (let i = 0; i < 5; i++) yield* log.recordWithinQuota(exportRecord(i, i), at(-24), 5)
        const refused = exportRecord(9, 6)
        assert.deepStrictEqual(yield* log.recordWithinQuota(refused, at(-18), 5), {
          recorded: false,
          oldest: at(0)
        })
        assert.isTrue(Option.isNone(yield* log.find(refused.export_id)))
      }))

    test("the window rolls: exports at or before the window start no longer count", () =>
      Effect.gen(function* () {
        const log = yield* ExportLog
        for (let i = 0; i < 5; i++) yield* log.recordWithinQuota(exportRecord(i, i), at(-24), 5)
        assert.deepStrictEqual(yield* log.recordWithinQuota(exportRecord(7, 24), at(-0.5), 5), {
          recorded: false,
          oldest: at(0)
        })
        assert.deepStrictEqual(yield* log.recordWithinQuota(exportRecord(8, 24), at(0), 5), {
          recorded: true
        })
        assert.deepStrictEqual(yield* log.recordWithinQuota(exportRecord(9, 24.5), at(0.5), 5), {
          recorded: false,
          oldest: at(1)
        })
      }))

    test("the quota is per account: another account's exports do not count", () =>
      Effect.gen(function* () {
        const log = yield* ExportLog
        for (let i = 0; i < 5; i++) yield* log.recordWithinQuota(exportRecord(i, i), at(-24), 5)
        assert.deepStrictEqual(
          yield* log.recordWithinQuota(exportRecord(6, 6, { account_id: "acct-2" }), at(-18), 5),
          { recorded: true }
        )
      }))

    test("find returns an export by its watermark, with who made it (account and key) and what it held; an unknown watermark finds nothing", () =>
      Effect.gen(function* () {
        const log = yield* ExportLog
        const record = exportRecord(1, 0, {
          format: "json",
          fields: ["slug", "domain_scores"],
          entity_type: "vault"
        })
        yield* log.recordWithinQuota(record, at(-24), 5)
        assert.deepStrictEqual(yield* log.find(record.export_id), Option.some(record))
        // An admin token's export has no key: its account says whose it was.
        const admin = exportRecord(2, 1, { account_id: "admin:ops@example", key_id: null })
        yield* log.recordWithinQuota(admin, at(-24), 5)
        assert.deepStrictEqual(yield* log.find(admin.export_id), Option.some(admin))
        assert.isTrue(Option.isNone(yield* log.find(uuid(99, 5))))
        assert.isTrue(Option.isNone(yield* log.find("not-a-watermark")))
      }))

    test("a withdrawn export no longer counts against the quota and is no longer found; withdrawing an unknown id changes nothing", () =>
      Effect.gen(function* () {
        const log = yield* ExportLog
        for (let i = 0; i < 5; i++) yield* log.recordWithinQuota(exportRecord(i, i), at(-24), 5)
        yield* log.withdraw(exportRecord(2, 2).export_id)
        yield* log.withdraw(uuid(99, 5))
        yield* log.withdraw("not-a-watermark")
        assert.isTrue(Option.isNone(yield* log.find(exportRecord(2, 2).export_id)))
        assert.isTrue(Option.isSome(yield* log.find(exportRecord(3, 3).export_id)))
        assert.deepStrictEqual(yield* log.recordWithinQuota(exportRecord(6, 6), at(-18), 5), {
          recorded: true
        })
        assert.deepStrictEqual(yield* log.recordWithinQuota(exportRecord(7, 7), at(-18), 5), {
          recorded: false,
          oldest: at(0)
        })
      }))
  })
