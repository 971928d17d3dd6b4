/**
 * The in-memory `QuantumSource` (tests, the demo): scripted through the
 * `QuantumSourceMemory` service it provides alongside.
 */
import { Context, Effect, Layer, Ref, Result } from "effect"
import { QuantumSource, QuantumSourceError } from "../QuantumSource.ts"

const makeMemoryScript = Effect.gen(function* () {
  const answer = yield* Ref.make<Result.Result<ReadonlyArray<unknown>, string>>(
    Result.fail("no response scripted")
  )
  const count = yield* Ref.make(0)
  return QuantumSourceMemory.of({
    respond: (rows) => Ref.set(answer, Result.succeed(rows)),
    fail: (message) => Ref.set(answer, Result.fail(message)),
    fetches: Ref.get(count),
    next: Effect.flatMap(
      Ref.updateAndGet(count, (n) => n + 1),
      () =>
        Effect.flatMap(Ref.get(answer), (result) =>
          Result.isSuccess(result)
            ? Effect.succeed(result.success)
            : Effect.fail(new QuantumSourceError({ message: result.failure }))
        )
    )
  })
})

/** Controls `QuantumSourceMemory.layer`: what the next fetch answers, and how many fetches were made. */
export class QuantumSourceMemory extends Context.Service<
  QuantumSourceMemory,
  {
    /** Every later fetch returns these rows. */
    readonly respond: (rows: ReadonlyArray<unknown>) => Effect.Effect<void>
    /** Every later fetch fails with this message. */
    readonly fail: (message: string) => Effect.Effect<void>
    readonly fetches: Effect.Effect<number>
    /** The scripted answer, counted as a fetch; `QuantumSourceMemory.layer` fetches through it. */
    readonly next: Effect.Effect<ReadonlyArray<unknown>, QuantumSourceError>
  }
>()("@ratings/domain/ports/QuantumSourceMemory") {
  /** The in-memory `QuantumSource`: every fetch is the scripted answer. */
  static readonly layer = Layer.effect(
    QuantumSource,
    Effect.gen(function* () {
      const script = yield* QuantumSourceMemory
      return QuantumSource.of({ fetch: script.next })
    })
  ).pipe(Layer.provideMerge(Layer.effect(QuantumSourceMemory, makeMemoryScript)))
}
