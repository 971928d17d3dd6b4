/**
 * What `ratings demo generate` does (the command: DemoCommand.ts): a
 * deterministic large dataset in the import format, for benchmarks.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { writeDataset } from "@ratings/demo-data"
import { Console, Effect } from "effect"
import { progressReporter } from "../../Progress.ts"
import { CommandFailed } from "../CommandFailed.ts"

export const generate = Effect.fnUntraced(function* (input: {
  readonly entities: number
  readonly seed: string
  readonly out: string
  readonly overwrite: boolean
}) {
  const { entities, seed, out, overwrite } = input
  if (!Number.isInteger(entities) || entities < 1) {
    yield* Console.error("--entities must be a whole number of at least 1")
    return yield* new CommandFailed({ message: "failed" })
  }
  const progress = yield* progressReporter("generate")
  const summary = yield* writeDataset(out, { entities, seed, overwrite }, (p) =>
    progress(p.entitiesWritten, p.totalEntities, "entities")
  ).pipe(Effect.result)
  if (summary._tag === "Failure") {
    yield* Console.error(`generate failed: ${summary.failure.message}`)
    return yield* new CommandFailed({ message: "failed" })
  }
  const s = summary.success
  yield* Console.log(`wrote ${s.entities} entities in ${s.files.length} files (${s.bytes} bytes) to ${s.dir}`)
}, Effect.provide(NodeServices.layer))
