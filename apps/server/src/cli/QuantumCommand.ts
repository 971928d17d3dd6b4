/**
 * `ratings quantum refresh`: fetch the quantum-readiness dataset now, as the
 * scheduled refresher of `ratings serve` would, and say how it went: rows
 * read, rows skipped, rows matched to service chains, or why it failed (exit
 * code 1). A failure keeps the previous snapshot, exactly as on the schedule.
 *
 * With no RATINGS_QUANTUM_SOURCE_URL it refuses without recording an attempt:
 * a recorded failure would flag the stored snapshot (the demo sample, say)
 * stale although no upstream was ever asked.
 */
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { Console, Effect, Option } from "effect"
import { Command } from "effect/cli"
import { AppInfo, AppLayer } from "../AppLayer.ts"
import { QuantumSourceUrlSetting } from "../Config.ts"
import { CommandFailed } from "./CommandFailed.ts"

const refresh = Command.make(
  "refresh",
  {},
  Effect.fnUntraced(function* () {
    const { config } = yield* AppInfo
    if (Option.isNone(config.quantum.sourceUrl)) {
      yield* Console.error(`quantum refresh failed: no upstream URL configured (${QuantumSourceUrlSetting})`)
      return yield* new CommandFailed({ message: "failed" })
    }
    const { outcome, snapshot } = yield* (yield* QuantumService).refresh
    if (!outcome.ok || snapshot === undefined) {
      yield* Console.error(
        `quantum refresh failed: ${outcome.error ?? "unknown error"}; the previous snapshot is kept`
      )
      return yield* new CommandFailed({ message: "failed" })
    }
    const matched = snapshot.rows.filter((row) => row.matched_chain_slug !== null).length
    yield* Console.log(
      `quantum readiness refreshed from ${snapshot.source} as of ${snapshot.as_of}: ` +
        `rows ${snapshot.rows.length}, rows_skipped ${snapshot.rows_skipped}, matched ${matched}`
    )
  }, Effect.provide(AppLayer))
).pipe(Command.withDescription("Fetch the quantum-readiness dataset now and store it as the latest snapshot"))

export const QuantumCommand = Command.make("quantum").pipe(
  Command.withDescription("Quantum-readiness data from the third-party source"),
  Command.withSubcommands([refresh])
)
