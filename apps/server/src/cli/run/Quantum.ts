/**
 * What `ratings quantum refresh` does (the command and its rules:
 * QuantumCommand.ts): one refresh as the scheduled refresher makes it, and a
 * line saying how it went.
 */
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { Console, Effect, Option } from "effect"
import { AppInfo, AppLayer } from "../../AppLayer.ts"
import { QuantumSourceUrlSetting } from "../../Config.ts"
import { CommandFailed } from "../CommandFailed.ts"

export const refresh = Effect.fnUntraced(function* () {
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
