/**
 * The ChainDirectory port over Postgres: the chains quantum-readiness rows
 * may match, read as the three columns matching needs (slug, name, status)
 * instead of whole entity records. The same rows as ChainDirectory.layerEntities,
 * in the same order: drafts included, private and inactive chains left out
 * (the domain's `VisibleFields`), by slug (byte order) then id.
 */
import { ChainDirectory } from "@ratings/domain/ports/ChainDirectory"
import { EntityStatus } from "@ratings/domain/model/Entity"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows, orReadError } from "./PgRows.ts"
import { visibleSql } from "./ReadableSql.ts"

const ChainRow = Schema.Struct({ slug: Schema.String, name: Schema.String, status: EntityStatus })

export const layer: Layer.Layer<ChainDirectory, never, SqlClient.SqlClient> = Layer.effect(
  ChainDirectory,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return ChainDirectory.of({
      all: sql`SELECT slug, name, status FROM entities
        WHERE entity_type = 'chain' AND ${sql.literal(visibleSql())}
        ORDER BY slug COLLATE "C", id`.pipe(
        Effect.flatMap(decodeRows(ChainRow)),
        orReadError("chain directory")
      )
    })
  })
)
