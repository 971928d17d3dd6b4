/**
 * The ApiKeyRepository port on Postgres. The table holds the SHA-256 digest of
 * each key and a short display prefix, never the key: the schema refuses
 * anything in `hash` that is not a hex digest, and prefixes longer than 12
 * characters, so a key handed over by mistake cannot be stored in clear.
 * Lookups go through the unique index on `hash`. A revocation bumps the keys'
 * version (cache_versions) in the same statement, so every process looks a
 * key up again on the first request after it commits.
 */
import { PgClient } from "@effect/sql-pg"
import { ApiKeyInfo } from "@ratings/domain/model/Caller"
import { ApiKeyRepository, type NewApiKey } from "@ratings/domain/ports/ApiKeyRepository"
import { Effect, Layer, Option, Schema } from "effect"
import { KeysVersion } from "./PgCacheInvalidation.ts"
import { decodeRows, IsoFromDate, IsoOrNullFromDate, orReadError } from "./PgRows.ts"
import { orStoreError } from "./PgTransaction.ts"

/** A key row decodes to the domain's `ApiKeyInfo`, its timestamps to ISO text. */
const KeyRow = Schema.Struct({
  ...ApiKeyInfo.fields,
  created_at: IsoFromDate,
  revoked_at: IsoOrNullFromDate
})
const decodeKeys = decodeRows(KeyRow)

const InfoColumns = "id, name, tier, account_id, prefix, created_at, revoked_at"

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient

  const create = (k: NewApiKey) =>
    sql`INSERT INTO api_keys (id, name, tier, account_id, prefix, hash, created_at)
      VALUES (${k.id}::text, ${k.name}::text, ${k.tier}::text, ${k.account_id}::text, ${k.prefix}::text,
        ${k.hash}::text, ${k.created_at}::timestamptz)
      RETURNING ${sql.literal(InfoColumns)}`.pipe(
      Effect.flatMap(decodeKeys),
      Effect.map((rows): ApiKeyInfo => rows[0]!),
      orReadError(`create API key ${k.id}`)
    )

  const findActiveByHash = (hash: string) =>
    sql`SELECT ${sql.literal(InfoColumns)} FROM api_keys
      WHERE hash = ${hash}::text AND revoked_at IS NULL`.pipe(
      Effect.flatMap(decodeKeys),
      Effect.map((rows): Option.Option<ApiKeyInfo> => Option.fromNullishOr(rows[0])),
      orReadError("find API key")
    )

  const list = () =>
    sql`SELECT ${sql.literal(InfoColumns)} FROM api_keys ORDER BY created_at, id`.pipe(
      Effect.flatMap(decodeKeys),
      orReadError("list API keys")
    )

  // A server stamps the keys it holds with the version read before their lookup, so the
  // first request that begins after this commits looks the key up again, and is refused.
  const revoke = (id: string, at: string) =>
    sql`WITH revoked AS (
        UPDATE api_keys SET revoked_at = ${at}::timestamptz WHERE id = ${id}::text AND revoked_at IS NULL
        RETURNING id
      ), bumped AS (
        INSERT INTO cache_versions AS v (entity_type, version)
        SELECT ${KeysVersion}::text, 1 FROM revoked
        ON CONFLICT (entity_type) DO UPDATE SET version = v.version + 1
        RETURNING 1
      )
      SELECT id FROM revoked, (SELECT count(*) FROM bumped) AS b`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError(`revoke API key ${id}`)
    )

  return ApiKeyRepository.of({ create, findActiveByHash, list, revoke })
})

export const layer: Layer.Layer<ApiKeyRepository, never, PgClient.PgClient> = Layer.effect(
  ApiKeyRepository,
  make
)
