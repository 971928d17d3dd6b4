/**
 * Cache invalidation between server processes, over Postgres
 * (docs/adr/0007-projection-cache.md). A process that changes an entity, a
 * scorecard or a rubric calls `notifyChanges` inside its own transaction,
 * which takes effect exactly when that transaction commits: it bumps the
 * version counter of each changed type (cache_versions), so a cache that
 * checks its entry's version (`currentVersions`) never serves a state older
 * than the last committed change; and it sends `NOTIFY ratings_changed`,
 * which listeners use to drop what they hold at once (memory, not
 * correctness).
 */
import { PgClient } from "@effect/sql-pg"
import { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import type { StoreError } from "@ratings/domain/ports/StoreError"
import { Context, Effect, Layer, Result, Schema, type Scope, Stream } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { decodeRows, toReadError } from "./PgRows.ts"
import { toStoreError } from "./PgTransaction.ts"

export const Channel = "ratings_changed"

/**
 * `entity_id` is `*` when every entity of the type changed (a large import), so listeners drop the whole type.
 * `entity_type` is an entity type or a feed (`incident`, `quantum`: ChangeTopic.ts), each with its own counter.
 */
export interface EntityChange {
  readonly entity_type: ChangeTopic
  readonly entity_id: string
}

export const AllOfType = "*"

export const payloadOf = (change: EntityChange): string => `${change.entity_type}:${change.entity_id}`

const isTopic = Schema.is(ChangeTopic)

export const parsePayload = (payload: string): Result.Result<EntityChange, string> => {
  const at = payload.indexOf(":")
  const type = payload.slice(0, at)
  const id = payload.slice(at + 1)
  return at > 0 && id !== "" && isTopic(type)
    ? Result.succeed({ entity_type: type, entity_id: id })
    : Result.fail(payload)
}

/**
 * Bumps the version of every changed type and queues the notifications, in
 * one statement on the current connection: inside a transaction both take
 * effect when it commits (identical payloads are sent once). Types are bumped
 * in one order (sorted) so that two writers never wait on each other's
 * counters in opposite orders; a writer holds its types' counters from here
 * to its commit, so writes of one type commit one after the other from this
 * point on (every write path calls this last, just before its commit).
 */
export const notifyChanges = (
  sql: SqlClient.SqlClient,
  changes: ReadonlyArray<EntityChange>
): Effect.Effect<void, SqlError.SqlError> => {
  if (changes.length === 0) return Effect.void
  const types = [...new Set(changes.map((c) => c.entity_type))].sort()
  return Effect.asVoid(
    sql`WITH bumped AS (
        INSERT INTO cache_versions AS v (entity_type, version)
        SELECT t, 1 FROM unnest(${types}::text[]) AS t ORDER BY t
        ON CONFLICT (entity_type) DO UPDATE SET version = v.version + 1
        RETURNING 1
      )
      SELECT pg_notify(${Channel}, payload) FROM unnest(${changes.map(payloadOf)}::text[]) AS payload`
  )
}

/**
 * The row of cache_versions that counts revocations of API keys (not an
 * entity type: the table's key is free text). Servers that hold looked-up
 * keys in memory read it with the types' versions, in the same query.
 */
export const KeysVersion = "api_keys"

/** A version per topic (entity type or feed): equal versions mean no change of it committed in between. */
export type Versions = { readonly [T in ChangeTopic]: string } & { readonly api_keys: string }

/** Every counter before its first bump: a counter without a row reads as "0". */
const NoVersions: Versions = {
  protocol: "0",
  chain: "0",
  token: "0",
  oracle: "0",
  vault: "0",
  organisation: "0",
  bridge: "0",
  incident: "0",
  quantum: "0",
  api_keys: "0"
}

const Counter = Schema.Union([ChangeTopic, Schema.Literal(KeysVersion)])

const decodeVersionRows = decodeRows(Schema.Struct({ entity_type: Schema.String, version: Schema.String }))

/**
 * The version of each entity type and of the API keys, as of this
 * statement's snapshot (a counter without a row yet reads as "0": its first
 * bump makes it "1"). Run it on its own, outside a transaction, so that its
 * snapshot is taken when it runs: it then reflects every change committed
 * before it was sent. A row of a counter this version does not know (a later
 * release's) is passed over.
 */
export const currentVersions = (
  sql: SqlClient.SqlClient
): Effect.Effect<Versions, SqlError.SqlError | Schema.SchemaError> =>
  Effect.map(
    Effect.flatMap(sql`SELECT entity_type, version::text AS version FROM cache_versions`, decodeVersionRows),
    (rows) => {
      const versions: { -readonly [K in keyof Versions]: string } = { ...NoVersions }
      for (const row of rows) if (isCounter(row.entity_type)) versions[row.entity_type] = row.version
      return versions
    }
  )

const isCounter = Schema.is(Counter)

export class CacheInvalidation extends Context.Service<
  CacheInvalidation,
  {
    /** Announces a change (`notifyChanges`): inside a transaction, it takes effect when that transaction commits. */
    readonly publish: (change: EntityChange) => Effect.Effect<void, StoreError>
    /**
     * Starts listening and returns the stream of changes once Postgres has
     * confirmed the LISTEN, so nothing committed afterwards is missed. The
     * listening connection is held until the scope closes.
     */
    readonly subscribe: Effect.Effect<Stream.Stream<EntityChange, StoreError>, StoreError, Scope.Scope>
    /** The version of every type now (`currentVersions` on the pool, outside any transaction). */
    readonly versions: Effect.Effect<Versions, StoreError>
  }
>()("@ratings/adapters-sql/PgCacheInvalidation/CacheInvalidation") {}

export const make = Effect.gen(function* () {
  const pg = yield* PgClient.PgClient
  return CacheInvalidation.of({
    publish: (change) =>
      notifyChanges(pg, [change]).pipe(Effect.mapError(toStoreError("cache invalidation"))),
    versions: currentVersions(pg).pipe(Effect.mapError(toReadError("read cache versions"))),
    subscribe: pg.listen(Channel).pipe(
      Effect.mapError(toStoreError(`LISTEN ${Channel}`)),
      Effect.map((queue) =>
        Stream.fromQueue(queue).pipe(
          Stream.mapError(toStoreError(`LISTEN ${Channel}`)),
          Stream.filterMap((notification) => parsePayload(notification.payload))
        )
      )
    )
  })
})

export const layer: Layer.Layer<CacheInvalidation, never, PgClient.PgClient> = Layer.effect(
  CacheInvalidation,
  make
)
