/**
 * The ChainDirectory port over Postgres: the chains quantum-readiness rows
 * may match, read as the three columns matching needs (slug, name, status)
 * instead of whole entity records (ChainDirectory.layerEntities decoded every
 * column of every chain for each quantum read: issue 15). Same rows, same
 * order: drafts included, private and inactive chains left out, by slug
 * (byte order) then id, as PgEntityRepository's `all`.
 */
import { ChainDirectory } from "@ratings/domain/ports/ChainDirectory"
import { EntityStatus } from "@ratings/domain/model/Entity"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows, orReadError } from "./PgRows.ts"

const ChainRow = Schema.Struct({ slug: Schema.String, name: Schema.String, status: EntityStatus })

export const layer: Layer.Layer<ChainDirectory, never, SqlClient.SqlClient> = Layer.effect(
  ChainDirectory,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return ChainDirectory.of({
      all: sql`SELECT slug, name, status FROM entities
        WHERE entity_type = 'chain' AND is_active AND NOT is_private
        ORDER BY slug COLLATE "C", id`.pipe(
        Effect.flatMap(decodeRows(ChainRow)),
        orReadError("chain directory")
      )
    })
  })
)
