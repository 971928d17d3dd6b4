/**
 * `ratings demo generate --entities N --seed S`: a deterministic large dataset
 * in the import format, for benchmarks.
 */
import { NodeServices } from "@effect/platform-node"
import { writeDataset } from "@ratings/demo-data"
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { progressReporter } from "../Progress.ts"
import { CommandFailed } from "./CommandFailed.ts"

const generate = Command.make(
  "generate",
  {
    entities: Flag.Int("entities").pipe(Flag.withDescription("How many entities"), Flag.withDefault(10_000)),
    seed: Flag.String("seed").pipe(Flag.withDescription("Same seed, same bytes"), Flag.withDefault("1")),
    out: Flag.String("out").pipe(
      Flag.withDescription("Folder to write"),
      Flag.withDefault(".data/generated")
    ),
    overwrite: Flag.Boolean("overwrite").pipe(
      Flag.withDescription("Replace JSON files already there"),
      Flag.withDefault(false)
    )
  },
  Effect.fnUntraced(function* ({ entities, seed, out, overwrite }) {
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
    yield* Console.log(
      `wrote ${s.entities} entities in ${s.files.length} files (${s.bytes} bytes) to ${s.dir}`
    )
  }, Effect.provide(NodeServices.layer))
).pipe(Command.withDescription("Write a deterministic dataset in the import format"))

export const DemoCommand = Command.make("demo").pipe(
  Command.withDescription("Demo and scale data"),
  Command.withSubcommands([generate])
)
