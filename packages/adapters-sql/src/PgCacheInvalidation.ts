/**
 * Cache invalidation between server processes over Postgres LISTEN/NOTIFY.
 * Every process may hold cached projections of entities and scorecards; when
 * any process changes one (a publish, an entity upsert) it sends
 * `NOTIFY ratings_changed, '<entity_type>:<entity_id>'` inside its own
 * transaction, so Postgres delivers it to every listener on commit and never on
 * rollback. Listeners drop what they cached for that entity.
 */
import { PgClient } from "@effect/sql-pg"
import { EntityTypes, type EntityType } from "@ratings/domain/model/EntityType"
import type { StoreError } from "@ratings/domain/ports/StoreError"
import { Context, Effect, Layer, Result, type Scope, Stream } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { toStoreError } from "./PgTransaction.ts"

export const Channel = "ratings_changed"

/** `entity_id` is `*` when every entity of the type changed (a large import), so listeners drop the whole type. */
export interface EntityChange {
  readonly entity_type: EntityType
  readonly entity_id: string
}

export const AllOfType = "*"

export const payloadOf = (change: EntityChange): string => `${change.entity_type}:${change.entity_id}`

export const parsePayload = (payload: string): Result.Result<EntityChange, string> => {
  const at = payload.indexOf(":")
  const type = payload.slice(0, at)
  const id = payload.slice(at + 1)
  return at > 0 && id !== "" && (EntityTypes as ReadonlyArray<string>).includes(type)
    ? Result.succeed({ entity_type: type as EntityType, entity_id: id })
    : Result.fail(payload)
}

/**
 * Queues the notifications on the current connection: inside a transaction
 * Postgres holds them until commit (identical payloads are sent once).
 */
export const notifyChanges = (
  sql: SqlClient.SqlClient,
  changes: ReadonlyArray<EntityChange>
): Effect.Effect<void, SqlError.SqlError> =>
  changes.length === 0
    ? Effect.void
    : Effect.asVoid(
        sql`SELECT pg_notify(${Channel}, payload) FROM unnest(${changes.map(payloadOf)}::text[]) AS payload`
      )

export class CacheInvalidation extends Context.Service<
  CacheInvalidation,
  {
    /** Announces a change; inside a transaction it is delivered when that transaction commits. */
    readonly publish: (change: EntityChange) => Effect.Effect<void, StoreError>
    /**
     * Starts listening and returns the stream of changes once Postgres has
     * confirmed the LISTEN, so nothing committed afterwards is missed. The
     * listening connection is held until the scope closes.
     */
    readonly subscribe: Effect.Effect<Stream.Stream<EntityChange, StoreError>, StoreError, Scope.Scope>
  }
>()("@ratings/adapters-sql/PgCacheInvalidation/CacheInvalidation") {}

export const make = Effect.gen(function* () {
  const pg = yield* PgClient.PgClient
  return CacheInvalidation.of({
    publish: (change) =>
      notifyChanges(pg, [change]).pipe(Effect.mapError(toStoreError("cache invalidation"))),
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
