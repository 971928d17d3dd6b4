/**
 * The harness of the ratings-side contract tests: each port's behaviour is
 * written once and run against every implementation, so they cannot drift:
 * the domain's own tests run it over the in-memory layers (`memoryTarget`),
 * adapters-sql's over Postgres (its `postgresTarget`, one database per suite,
 * emptied before each test). A target says how to get a fresh port for each
 * test; the harness itself needs no database.
 */
import { layer } from "@effect/vitest"
import { Effect, Layer, type Scope } from "effect"

export interface Target<S, D = never> {
  readonly label: string
  /** Built once for the suite (the test database), or nothing. */
  readonly shared: Layer.Layer<D, unknown>
  /** Built for each test, on top of `shared`. */
  readonly fresh: Layer.Layer<S, unknown, D>
  /** Clears what earlier tests of the suite wrote. */
  readonly reset: Effect.Effect<void, unknown, D>
}

export type Test<S> = (name: string, body: () => Effect.Effect<void, unknown, S | Scope.Scope>) => void

/** Runs `suite`'s tests against `target`, each on a fresh port. */
export const contract = <S, D>(title: string, target: Target<S, D>, suite: (test: Test<S>) => void) =>
  layer(target.shared)(`${title} [${target.label}]`, (it) => {
    suite((name, body) =>
      it.effect(name, () =>
        Effect.gen(function* () {
          yield* target.reset
          yield* body().pipe(Effect.provide(target.fresh))
        })
      )
    )
  })

export const memoryTarget = <S>(fresh: Layer.Layer<S, unknown>): Target<S> => ({
  label: "layerMemory",
  shared: Layer.empty,
  fresh,
  reset: Effect.void
})
