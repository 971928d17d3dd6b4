/**
 * The Readiness port on Postgres: `SELECT 1` through the pool, so the probe
 * fails when the database cannot be reached (or the pool cannot connect).
 */
import { PgClient } from "@effect/sql-pg"
import { Readiness } from "@ratings/domain/ports/Readiness"
import { Effect, Layer } from "effect"
import { orStoreError } from "./PgTransaction.ts"

export const layer: Layer.Layer<never, never, PgClient.PgClient> = Layer.effect(
  Readiness,
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    return { check: sql`SELECT 1`.pipe(Effect.asVoid, orStoreError("readiness probe")) }
  })
)
