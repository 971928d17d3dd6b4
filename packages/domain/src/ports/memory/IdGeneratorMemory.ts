/** The in-memory `IdGenerator` of tests and tools; the contract is the port's (`../IdGenerator.ts`). */
import { Effect, Layer, Ref } from "effect"
import { IdGenerator } from "../IdGenerator.ts"

const layer = Layer.effect(
  IdGenerator,
  Effect.gen(function* () {
    const counter = yield* Ref.make(0)
    return IdGenerator.of({
      uuid: Effect.map(
        Ref.updateAndGet(counter, (n) => n + 1),
        (n) => `00000000-0000-4000-a000-${n.toString(16).padStart(12, "0")}`
      )
    })
  })
)

export const IdGeneratorMemory = { layer }
