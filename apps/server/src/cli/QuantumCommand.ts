/**
 * `ratings quantum refresh`: fetch the quantum-readiness dataset now, as the
 * scheduled refresher of `ratings serve` would, and say how it went: rows
 * read, rows skipped, rows matched to service chains, or why it failed (exit
 * code 1). A failure keeps the previous snapshot, exactly as on the schedule.
 *
 * With no RATINGS_QUANTUM_SOURCE_URL it refuses without recording an attempt:
 * a recorded failure would flag the stored snapshot (the demo sample, say)
 * stale although no upstream was ever asked (run/Quantum.ts).
 */
import { Command } from "effect/cli"
import { lazily } from "./Lazy.ts"

const refresh = Command.make("refresh", {}, () =>
  lazily(
    () => import("./run/Quantum.ts"),
    (run) => run.refresh()
  )
).pipe(Command.withDescription("Fetch the quantum-readiness dataset now and store it as the latest snapshot"))

export const QuantumCommand = Command.make("quantum").pipe(
  Command.withDescription("Quantum-readiness data from the third-party source"),
  Command.withSubcommands([refresh])
)
