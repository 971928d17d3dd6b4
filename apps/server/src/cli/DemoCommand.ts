/**
 * `ratings demo generate --entities N --seed S`: a deterministic large dataset
 * in the import format, for benchmarks (run/Demo.ts).
 */
import { Command, Flag } from "effect/cli"
import { lazily } from "./Lazy.ts"

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
  (input) =>
    lazily(
      () => import("./run/Demo.ts"),
      (run) => run.generate(input)
    )
).pipe(Command.withDescription("Write a deterministic dataset in the import format"))

export const DemoCommand = Command.make("demo").pipe(
  Command.withDescription("Demo and scale data"),
  Command.withSubcommands([generate])
)
