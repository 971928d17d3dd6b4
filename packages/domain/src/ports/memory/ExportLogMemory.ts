/** The in-memory `ExportLog` of tests and tools; the contract is the port's (`../ExportLog.ts`). */
import { Effect, Layer, Option, Ref } from "effect"
import { ExportLog, type ExportRecord, type QuotaOutcome } from "../ExportLog.ts"

const layer = Layer.effect(
  ExportLog,
  Effect.gen(function* () {
    const log = yield* Ref.make<ReadonlyArray<ExportRecord>>([])
    return ExportLog.of({
      recordWithinQuota: (record, windowStart, quota) =>
        Ref.modify(log, (all): readonly [QuotaOutcome, ReadonlyArray<ExportRecord>] => {
          const inWindow = all
            .filter(
              (r) => r.account_id === record.account_id && Date.parse(r.created_at) > Date.parse(windowStart)
            )
            .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
          if (inWindow.length >= quota) return [{ recorded: false, oldest: inWindow[0]!.created_at }, all]
          return [{ recorded: true }, [...all, record]]
        }),
      find: (id) =>
        Effect.map(Ref.get(log), (all) => Option.fromNullishOr(all.find((r) => r.export_id === id))),
      withdraw: (id) => Ref.update(log, (all) => all.filter((r) => r.export_id !== id))
    })
  })
)

export const ExportLogMemory = { layer }
