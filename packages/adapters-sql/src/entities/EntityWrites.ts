/**
 * The writes of the EntityRepository on Postgres. An upsert rewrites only rows
 * that differ (updated_at is the record's, never the store's) and announces
 * each change, with the types whose public records depend on it
 * (`withDependents`), on commit.
 */
import type { PgClient } from "@effect/sql-pg"
import { isReadable } from "@ratings/domain/access/Readable"
import type { EntityStatus } from "@ratings/domain/model/Entity"
import { EntityType, EntityTypes } from "@ratings/domain/model/EntityType"
import type { EntityRepository, StoredEntity } from "@ratings/domain/ports/EntityRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Schema } from "effect"
import { AllOfType, type EntityChange, notifyChanges } from "../PgCacheInvalidation.ts"
import { decodeRows, toReadError } from "../PgRows.ts"
import { catchSqlError, isUuid } from "../PgTransaction.ts"
import { decodeShown, type Row, ShownRow, toRow } from "./EntityRows.ts"

type Writes = Pick<EntityRepository["Service"], "upsert" | "setStatus">

/** Rows per INSERT: one jsonb parameter each, so the batch size is bounded by memory, not by parameters. */
const Chunk = 1000
/** Above this many changed rows in one upsert, listeners are told "the whole type" instead of each id. */
const NotifyEachUpTo = 100

/**
 * The changes to announce for changed entities, with the types whose public
 * records depend on them: a record of any type leaves out the briefs of chains
 * the public cannot read, a bridge its validator_set_owner when that
 * organisation is private or inactive, and a vault its curator when the public
 * cannot read that organisation (docs/adr/0003-access-and-lists.md), so a
 * change of a chain touches every type, and one of an organisation bridges and vaults.
 * A scorecard of any type names its largest drag only while the public can
 * read that dependency (of any type, found by its slug), so `readability`
 * (some entity's readability or slug changed) touches every type too.
 */
export const withDependents = (
  changes: ReadonlyArray<EntityChange>,
  readability = false
): ReadonlyArray<EntityChange> => {
  const touched = new Set<EntityType>()
  for (const c of changes) {
    if (c.entity_type === "chain" || readability) for (const t of EntityTypes) touched.add(t)
    if (c.entity_type === "organisation") {
      touched.add("bridge")
      touched.add("vault")
    }
  }
  return [...changes, ...[...touched].map((t) => ({ entity_type: t, entity_id: AllOfType }))]
}

/** What a stored row shows the public, as a drag hint needs it: whether it is readable, under which slug. */
interface Shown {
  readonly slug: string
  readonly readable: boolean
}

const shownOf = (row: {
  readonly slug: string
  readonly status: string
  readonly is_active: boolean
  readonly is_private: boolean
}): Shown => ({ slug: row.slug, readable: isReadable(row) })

/**
 * Whether writing `after` over `before` may change what a drag hint shows
 * (its readability or its slug). A row the write did not find before counts
 * when it is written hidden: a concurrent write may have inserted it readable.
 */
const changesShown = (before: Shown | undefined, after: Shown): boolean =>
  before === undefined ? !after.readable : before.readable !== after.readable || before.slug !== after.slug

const decodeStoredRows = decodeRows(Schema.Struct({ ...ShownRow.fields, entity_type: Schema.String }))
const decodeChangedRows = decodeRows(Schema.Struct({ id: Schema.String, entity_type: EntityType }))
const decodeStored = (rows: ReadonlyArray<unknown>) =>
  Effect.mapError(decodeStoredRows(rows), toReadError("upsert entities"))
const decodeChanged = (rows: ReadonlyArray<unknown>) =>
  Effect.mapError(decodeChangedRows(rows), toReadError("upsert entities"))

const upsertChunk = (sql: PgClient.PgClient, rows: ReadonlyArray<Row>) =>
  Effect.gen(function* () {
    // The stored rows this chunk overwrites, locked until the commit so that what they showed is still
    // what they show when the INSERT replaces them.
    const stored = yield* sql`
      SELECT e.id, e.entity_type, e.slug, e.status, e.is_active, e.is_private
      FROM entities e
      WHERE e.id IN (SELECT r.id FROM jsonb_to_recordset(${sql.json(rows.map((r) => ({ id: r.id })))})
        AS r(id uuid))
      ORDER BY e.id FOR UPDATE`.pipe(Effect.flatMap(decodeStored))
    const wanted = new Map(rows.map((r) => [r.id.toLowerCase(), r]))
    const clash = stored.find((e) => wanted.get(e.id)?.entity_type !== e.entity_type)
    if (clash !== undefined) {
      return yield* new StoreError({
        message: `upsert entities: ${clash.id} is stored as a ${clash.entity_type}, not a ${wanted.get(clash.id)?.entity_type}`
      })
    }
    const before = new Map(stored.map((e) => [e.id, shownOf(e)]))
    const changed = yield* sql`
      INSERT INTO entities AS e (id, entity_type, slug, name, status, categories, chains, chain_slugs, urls,
        external_ids, description, is_active, is_private, created_at, updated_at, domain_weights, curator_id,
        is_framework, details, name_lower, symbol_lower)
      SELECT id, entity_type, slug, name, status, categories, chains, chain_slugs, urls,
        external_ids, description, is_active, is_private, created_at, updated_at, domain_weights, curator_id,
        is_framework, details, name_lower, symbol_lower
      FROM jsonb_to_recordset(${sql.json(rows)}) AS r(id uuid, entity_type text, slug text, name text,
        status text, categories text[], chains jsonb, chain_slugs text[], urls jsonb, external_ids jsonb,
        description text, is_active boolean, is_private boolean, created_at timestamptz,
        updated_at timestamptz, domain_weights jsonb, curator_id uuid, is_framework boolean, details jsonb,
        name_lower text, symbol_lower text)
      ON CONFLICT (id) DO UPDATE SET
        slug = excluded.slug, name = excluded.name, status = excluded.status,
        categories = excluded.categories, chains = excluded.chains, chain_slugs = excluded.chain_slugs,
        urls = excluded.urls, external_ids = excluded.external_ids, description = excluded.description,
        is_active = excluded.is_active, is_private = excluded.is_private, created_at = excluded.created_at,
        updated_at = excluded.updated_at, domain_weights = excluded.domain_weights,
        curator_id = excluded.curator_id, is_framework = excluded.is_framework, details = excluded.details,
        name_lower = excluded.name_lower, symbol_lower = excluded.symbol_lower
      WHERE (e.slug, e.name, e.status, e.categories, e.chains, e.urls, e.external_ids, e.description,
          e.is_active, e.is_private, e.created_at, e.updated_at, e.domain_weights, e.curator_id,
          e.is_framework, e.details)
        IS DISTINCT FROM (excluded.slug, excluded.name, excluded.status, excluded.categories, excluded.chains,
          excluded.urls, excluded.external_ids, excluded.description, excluded.is_active, excluded.is_private,
          excluded.created_at, excluded.updated_at, excluded.domain_weights, excluded.curator_id,
          excluded.is_framework, excluded.details)
      RETURNING e.id, e.entity_type`.pipe(Effect.flatMap(decodeChanged))
    return changed.map((c) => {
      const row = wanted.get(c.id.toLowerCase())!
      const after = shownOf({
        slug: String(row.slug),
        status: String(row.status),
        is_active: row.is_active === true,
        is_private: row.is_private === true
      })
      return { ...c, showsOtherwise: changesShown(before.get(c.id.toLowerCase()), after) }
    })
  })

const upsert = (sql: PgClient.PgClient) =>
  Effect.fn("PgEntityRepository.upsert")(function* (entities: ReadonlyArray<StoredEntity>) {
    if (entities.length === 0) return
    // The last write of an id wins, as in memory; one INSERT cannot touch a row twice.
    const byId = new Map<string, Row>()
    for (const e of entities) byId.set(e.record.id.toLowerCase(), toRow(e))
    const rows = [...byId.values()]
    yield* sql
      .withTransaction(
        Effect.gen(function* () {
          const changed: Array<{ id: string; entity_type: EntityType; showsOtherwise: boolean }> = []
          for (let i = 0; i < rows.length; i += Chunk)
            changed.push(...(yield* upsertChunk(sql, rows.slice(i, i + Chunk))))
          const notices: ReadonlyArray<EntityChange> =
            changed.length <= NotifyEachUpTo
              ? changed.map((c) => ({ entity_type: c.entity_type, entity_id: c.id }))
              : [...new Set(changed.map((c) => c.entity_type))].map((t) => ({
                  entity_type: t,
                  entity_id: AllOfType
                }))
          yield* notifyChanges(
            sql,
            withDependents(
              notices,
              changed.some((c) => c.showsOtherwise)
            )
          )
        })
      )
      .pipe(catchSqlError("upsert entities"))
  })

const setStatus =
  (sql: PgClient.PgClient) => (type: EntityType, id: string, status: EntityStatus, updatedAt: string) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const [stored] = isUuid(id)
            ? yield* sql`
              SELECT id, slug, status, is_active, is_private FROM entities
              WHERE entity_type = ${type}::text AND id = ${id}::uuid FOR UPDATE`.pipe(
                Effect.flatMap((rows) => Effect.mapError(decodeShown(rows), toReadError("set status")))
              )
            : []
          if (stored === undefined) return yield* new StoreError({ message: `set status: no ${type} ${id}` })
          yield* sql`UPDATE entities SET status = ${status}::text, updated_at = ${updatedAt}::timestamptz
          WHERE id = ${stored.id}::uuid`
          const showsOtherwise = changesShown(shownOf(stored), shownOf({ ...stored, status }))
          yield* notifyChanges(
            sql,
            withDependents([{ entity_type: type, entity_id: stored.id }], showsOtherwise)
          )
        })
      )
      .pipe(catchSqlError(`set status of ${type} ${id}`))

export const writes = (sql: PgClient.PgClient): Writes => ({
  upsert: upsert(sql),
  setStatus: setStatus(sql)
})
