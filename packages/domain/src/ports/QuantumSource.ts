/**
 * Port: the third-party quantum-readiness dataset (LayerQu). It hands back the
 * rows as raw JSON values; reading and checking them is the domain's job
 * (`quantum/QuantumRows.ts`), so an adapter never decides which rows count.
 *
 * `layerMemory` is scripted: tests tell it, through `QuantumSourceMemory`,
 * what the next fetch returns or that the source is unreachable.
 */
import { Context, Effect, Layer, Ref, Result, Schema } from "effect"

/** The source could not be read at all (unreachable, timed out, not a JSON array). */
export class QuantumSourceError extends Schema.TaggedError<QuantumSourceError>()("QuantumSourceError", {
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

/** Controls `QuantumSource.layerMemory`: what the next fetch answers, and how many fetches were made. */
export class QuantumSourceMemory extends Context.Service<
  QuantumSourceMemory,
  {
    /** Every later fetch returns these rows. */
    readonly respond: (rows: ReadonlyArray<unknown>) => Effect.Effect<void>
    /** Every later fetch fails with this message. */
    readonly fail: (message: string) => Effect.Effect<void>
    readonly fetches: Effect.Effect<number>
    /** The scripted answer, counted as a fetch; `QuantumSource.layerMemory` fetches through it. */
    readonly next: Effect.Effect<ReadonlyArray<unknown>, QuantumSourceError>
  }
>()("@ratings/domain/ports/QuantumSourceMemory") {}

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

export class QuantumSource extends Context.Service<
  QuantumSource,
  {
    /** The upstream's rows, unchecked. */
    readonly fetch: Effect.Effect<ReadonlyArray<unknown>, QuantumSourceError>
    /** True when this source serves the sample data shipped with the service, not the live upstream. */
    readonly sample?: boolean
  }
>()("@ratings/domain/ports/QuantumSource") {
  static readonly layerMemory = Layer.effect(
    QuantumSource,
    Effect.gen(function* () {
      const script = yield* QuantumSourceMemory
      return QuantumSource.of({ fetch: script.next })
    })
  ).pipe(Layer.provideMerge(Layer.effect(QuantumSourceMemory, makeMemoryScript)))
}
