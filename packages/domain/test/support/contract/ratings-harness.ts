/**
 * The harness of the ratings-side contract tests: each port's behaviour is
 * written once and run against the domain's in-memory layer and the Postgres
 * adapter, so the two cannot drift. A target says how to get a fresh port for
 * each test: in memory a new layer, in Postgres the adapter's layer over one
 * database per suite, emptied before each test.
 */
import { layer } from "@effect/vitest"
import { Effect, Layer, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { TestDatabase } from "../TestDatabase.ts"

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

type Database = Layer.Success<typeof TestDatabase>

/** Every table the ratings side writes; CASCADE reaches answers and evidence through their foreign keys. */
export const truncateRatings = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`TRUNCATE entities, questions, scorecards, answers, evidence, rating_history, api_keys, export_log CASCADE`
})

export const postgresTarget = <S>(fresh: Layer.Layer<S, unknown, Database>): Target<S, Database> => ({
  label: "Postgres",
  shared: TestDatabase,
  fresh,
  reset: truncateRatings
})
