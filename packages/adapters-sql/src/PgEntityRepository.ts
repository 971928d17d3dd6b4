/**
 * The EntityRepository port on Postgres: the seven entity types in one
 * `entities` table. The repository is composed by concern: the rows and their
 * schemas (entities/EntityRows.ts), the reads, lists paged and counted in the
 * database (entities/EntityReads.ts), and the writes, which rewrite only rows
 * that differ and announce each change (entities/EntityWrites.ts).
 */
import { PgClient } from "@effect/sql-pg"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { Effect, Layer } from "effect"
import { reads } from "./entities/EntityReads.ts"
import { writes } from "./entities/EntityWrites.ts"

export { entityMatch, listStatement } from "./entities/EntityReads.ts"
export { ColumnsOf, decodeEntities, toRecord, toRow } from "./entities/EntityRows.ts"
export { withDependents } from "./entities/EntityWrites.ts"

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  return EntityRepository.of({
    ...reads(sql),
    ...writes(sql)
  })
})

export const layer: Layer.Layer<EntityRepository, never, PgClient.PgClient> = Layer.effect(
  EntityRepository,
  make
)
