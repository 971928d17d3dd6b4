/**
 * The EntityRepository port on Postgres: the seven entity types in one
 * `entities` table. Shared fields are columns; each type's own fields live in
 * `details` (jsonb), except a vault's curator_id and is_framework, which lists
 * filter on. The readable rule (ReadableSql.ts) and the list filter's keys and
 * criteria (access/ListFilter.ts) come from the domain: rows store the keys as
 * columns (categories lowercased, name_lower, symbol_lower, chain_slugs) and
 * lists write their WHERE from the criteria, page in the database (ORDER BY
 * slug COLLATE "C", id) and count under the same WHERE. A record reads back as
 * written, but for those categories, timestamps in UTC in the wire form
 * (`isoTimestamp`), uuids in lowercase, and a token's absent shared fields
 * present and empty (fields kept in `details` keep their absence). An upsert
 * rewrites only rows that differ: updated_at is the record's, never the store's.
 */
import { PgClient } from "@effect/sql-pg"
import { type EntityListQuery, listCriteriaOf, listKeysOf } from "@ratings/domain/access/ListFilter"
import { isReadable } from "@ratings/domain/access/Readable"
import { type EntityRecord, EntityFields, EntityStatus } from "@ratings/domain/model/Entity"
import { EntityType, EntityTypes } from "@ratings/domain/model/EntityType"
import {
  EntityRepository,
  type ListPosition,
  type StoredEntity,
  type UnreadableRef
} from "@ratings/domain/ports/EntityRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Layer, Option, Schema } from "effect"
import type { SqlError, Statement } from "effect/sql"
import { AllOfType, type EntityChange, notifyChanges } from "./PgCacheInvalidation.ts"
import { decodeRows, isoText, orReadError, toReadError } from "./PgRows.ts"
import { catchSqlError, isUuid } from "./PgTransaction.ts"
import { readableSql, requiredSql } from "./ReadableSql.ts"

/**
 * An entity row, decoded with the domain's schemas where a shared column holds
 * a domain value (type, status, categories, urls, external ids) and timestamps
 * to the ISO text the record holds. Ids and slugs are the column's text as
 * stored, timestamps Dates spelled in the record (`isoText`), and the jsonb columns that hold each type's own fields (chains,
 * details) are checked for their shape only: the list reads decode every row
 * of a page, the hottest path of the service, and the record was validated as
 * a whole when it was written.
 */
const EntityRow = Schema.Struct({
  id: Schema.String,
  entity_type: EntityType,
  slug: Schema.String,
  name: EntityFields.name,
  status: EntityStatus,
  categories: EntityFields.categories,
  chains: Schema.Array(Schema.Unknown),
  urls: EntityFields.urls,
  external_ids: EntityFields.external_ids,
  description: EntityFields.description,
  is_active: EntityFields.is_active,
  is_private: EntityFields.is_private,
  created_at: Schema.Date,
  updated_at: Schema.Date,
  curator_id: Schema.NullOr(Schema.String),
  is_framework: Schema.Boolean,
  details: Schema.Record(Schema.String, Schema.Unknown)
})
type EntityRow = typeof EntityRow.Type

export const decodeEntities = decodeRows(EntityRow)

const ColumnNames = [
  "id",
  "entity_type",
  "slug",
  "name",
  "status",
  "categories",
  "chains",
  "urls",
  "external_ids",
  "description",
  "is_active",
  "is_private",
  "created_at",
  "updated_at",
  "curator_id",
  "is_framework",
  "details"
]
const Columns = ColumnNames.join(", ")
export const ColumnsOf = (alias: string) => ColumnNames.map((c) => `${alias}.${c}`).join(", ")

/** The record keys stored as shared columns; everything else goes to `details`. */
const SharedKeys = new Set([
  "id",
  "name",
  "slug",
  "status",
  "categories",
  "chains",
  "urls",
  "external_ids",
  "description",
  "is_active",
  "is_private",
  "created_at",
  "updated_at"
])
const VaultColumns = new Set(["curator_id", "is_framework"])

export const toRecord = (row: EntityRow): EntityRecord => {
  const record: Record<string, unknown> = {
    ...row.details,
    id: row.id,
    name: row.name,
    slug: row.slug,
    status: row.status,
    categories: row.categories,
    chains: row.chains,
    urls: row.urls,
    external_ids: row.external_ids,
    description: row.description,
    is_active: row.is_active,
    is_private: row.is_private,
    created_at: isoText(row.created_at),
    updated_at: isoText(row.updated_at)
  }
  if (row.entity_type === "vault") {
    record.curator_id = row.curator_id
    record.is_framework = row.is_framework
  }
  return record as unknown as EntityRecord
}

/** The columns of one entity, its categories and derived keys as the domain's list filter reads them. */
export const toRow = (entity: StoredEntity) => {
  const r = entity.record as unknown as { readonly [key: string]: unknown } & {
    readonly id: string
    readonly name: string
    readonly chains?: ReadonlyArray<{ readonly slug: string }>
  }
  const vault = entity.entity_type === "vault"
  const details: Record<string, unknown> = {}
  for (const key of Object.keys(r)) {
    if (!SharedKeys.has(key) && !(vault && VaultColumns.has(key))) details[key] = r[key]
  }
  const keys = listKeysOf(entity.record)
  return {
    id: r.id,
    entity_type: entity.entity_type,
    slug: r.slug,
    name: r.name,
    status: r.status,
    categories: keys.categories,
    chains: r.chains ?? [],
    chain_slugs: keys.chainSlugs,
    urls: r.urls ?? {},
    external_ids: r.external_ids ?? {},
    description: r.description ?? null,
    is_active: r.is_active,
    is_private: r.is_private,
    created_at: r.created_at,
    updated_at: r.updated_at,
    domain_weights: entity.domain_weights ?? null,
    curator_id: vault ? (r.curator_id ?? null) : null,
    is_framework: vault ? r.is_framework === true : false,
    details,
    name_lower: keys.nameLower,
    symbol_lower: keys.symbolLower ?? null
  }
}

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

/** The readable rule over the table's own columns, and over an alias `u`. */
const Readable = readableSql()
const ReadableU = readableSql("u")

/** The WHERE of a list query: the list flags' readable fields, then the domain's criteria, one clause each. */
const whereOf = (sql: PgClient.PgClient, q: EntityListQuery): Statement.Fragment => {
  const c = listCriteriaOf(q)
  const clauses: Array<Statement.Fragment> = [
    sql`entity_type = ${q.entity_type}::text`,
    sql.literal(requiredSql(q.flags))
  ]
  if (q.entity_type === "vault" && !q.flags.include_frameworks) clauses.push(sql`NOT is_framework`)
  if (c.status !== undefined) clauses.push(sql`status = ${c.status}::text`)
  if (c.needle !== undefined) {
    // A substring as LIKE '%needle%' (wildcards escaped), so that entities_search can serve it.
    const pattern = `%${c.needle.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
    clauses.push(
      sql`(name_lower LIKE ${pattern}::text OR slug LIKE ${pattern}::text OR symbol_lower LIKE ${pattern}::text)`
    )
  }
  if (c.chain !== undefined) clauses.push(sql`chain_slugs @> ARRAY[${c.chain}::text]`)
  if (c.curator !== undefined)
    clauses.push(
      c.curator === null
        ? sql`curator_id IS NULL`
        : c.curator === false
          ? sql`false`
          : sql`curator_id = ${c.curator}::uuid`
    )
  if (c.categories.length > 0)
    clauses.push(
      c.anyCategory ? sql`categories && ${c.categories}::text[]` : sql`categories @> ${c.categories}::text[]`
    )
  return sql.and(clauses)
}

/** `unreadable`'s statement as one json value (`[]` when there is none), rows in its order. */
const unreadableJson = (sql: PgClient.PgClient, type: EntityType) =>
  sql`(SELECT coalesce(json_agg(json_build_object('id', u.id, 'slug', u.slug, 'status', u.status,
      'is_private', u.is_private, 'is_active', u.is_active) ORDER BY u.slug COLLATE "C", u.id), '[]'::json)
    FROM entities u
    WHERE u.entity_type = ${type}::text AND NOT (${sql.literal(ReadableU)}))`

/**
 * The unreadable entities of each type as columns unreadable_0, unreadable_1...
 * (after a comma), on the first row only: a list's rows would otherwise each
 * carry them. Postgres numbers the rows as they come, whatever their order.
 */
const unreadableColumns = (sql: PgClient.PgClient, hidden: ReadonlyArray<EntityType>) =>
  hidden.length === 0
    ? sql``
    : sql`, ${sql.csv(
        hidden.map(
          (type, i) =>
            sql`CASE WHEN row_number() OVER () = 1 THEN ${unreadableJson(sql, type)} END AS ${sql.literal(`unreadable_${i}`)}`
        )
      )}`

/**
 * One round trip for a list: the count and the page are separate subqueries
 * over the same WHERE, each planned on its own. The page first finds the ids
 * of its rows (an unfiltered list walks entities_listed in order, index only,
 * and stops at LIMIT), then reads the full rows of those ids alone, so a deep
 * OFFSET skips index entries, not table rows. An empty page still yields the
 * count, with a null row. Exported so that tests can EXPLAIN exactly what runs.
 */
export const listStatement = (
  sql: PgClient.PgClient,
  q: EntityListQuery,
  hidden: ReadonlyArray<EntityType> = []
) => {
  const where = whereOf(sql, q)
  return sql<{ readonly total: number; readonly id: string | null }>`
    SELECT c.total${unreadableColumns(sql, hidden)}, p.* FROM (SELECT count(*)::int AS total FROM entities WHERE ${where}) c
    LEFT JOIN LATERAL (
      SELECT ${sql.literal(ColumnsOf("e"))}
      FROM (
        SELECT id, slug FROM entities WHERE ${where}
        ORDER BY slug COLLATE "C", id LIMIT ${q.limit} OFFSET ${q.skip}
      ) k
      JOIN entities e ON e.id = k.id
      ORDER BY k.slug COLLATE "C", k.id
    ) p ON true`
}

const decodeTotal = Schema.decodeUnknownEffect(Schema.Struct({ total: Schema.Number }))

const list = (sql: PgClient.PgClient) => (q: EntityListQuery) =>
  listStatement(sql, q).pipe(
    Effect.flatMap((rows) =>
      Effect.all({
        total: rows[0] === undefined ? Effect.succeed(0) : Effect.map(decodeTotal(rows[0]), (c) => c.total),
        items: Effect.map(decodeEntities(rows.filter((row) => row.id !== null)), (page) => page.map(toRecord))
      })
    ),
    orReadError(`list ${q.entity_type}`)
  )

const one = (what: string, statement: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
  statement.pipe(
    Effect.flatMap(decodeEntities),
    Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toRecord)),
    orReadError(what)
  )

const findById = (sql: PgClient.PgClient) => (type: EntityType, id: string) =>
  isUuid(id)
    ? one(
        `find ${type} ${id}`,
        sql`SELECT ${sql.literal(Columns)} FROM entities
          WHERE entity_type = ${type}::text AND id = ${id}::uuid`
      )
    : Effect.succeedNone

const findBySlug = (sql: PgClient.PgClient) => (type: EntityType, slug: string) =>
  one(
    `find ${type} ${slug}`,
    sql`SELECT ${sql.literal(Columns)} FROM entities
      WHERE entity_type = ${type}::text AND slug = ${slug}::text`
  )

/** One statement for all the identifiers: a BitmapOr of the primary key and entities_slug_unique. */
const findMany =
  (sql: PgClient.PgClient) =>
  (
    type: EntityType,
    lookup: { readonly ids: ReadonlyArray<string>; readonly slugs: ReadonlyArray<string> }
  ) => {
    const ids = [...new Set(lookup.ids.filter(isUuid).map((id) => id.toLowerCase()))]
    const slugs = [...new Set(lookup.slugs)]
    if (ids.length === 0 && slugs.length === 0) return Effect.succeed([])
    return sql`SELECT ${sql.literal(Columns)} FROM entities
      WHERE entity_type = ${type}::text AND (id = ANY(${ids}::uuid[]) OR slug = ANY(${slugs}::text[]))`.pipe(
      Effect.flatMap(decodeEntities),
      Effect.map((rows) => rows.map(toRecord)),
      orReadError(`find ${ids.length + slugs.length} ${type} entities`)
    )
  }

const published = (sql: PgClient.PgClient) => (type: EntityType, limit: number, after?: ListPosition) =>
  after !== undefined && !isUuid(after.id)
    ? Effect.fail(new StoreError({ message: `published ${type}: page position id is not a UUID` }))
    : sql`SELECT ${sql.literal(Columns)} FROM entities
    WHERE entity_type = ${type}::text AND ${sql.literal(Readable)} AND NOT is_framework
      ${after === undefined ? sql`` : sql`AND (slug COLLATE "C", id) > (${after.slug}::text COLLATE "C", ${after.id}::uuid)`}
    ORDER BY slug COLLATE "C", id LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeEntities),
        Effect.map((rows) => rows.map(toRecord)),
        orReadError(`published ${type}`)
      )

const decodeCounts = decodeRows(Schema.Struct({ n: Schema.Number }))

const countPublished = (sql: PgClient.PgClient) => (type: EntityType) =>
  sql`SELECT count(*)::int AS n FROM entities
    WHERE entity_type = ${type}::text AND ${sql.literal(Readable)} AND NOT is_framework`.pipe(
    Effect.flatMap(decodeCounts),
    Effect.map((rows) => rows[0]?.n ?? 0),
    orReadError(`count published ${type}`)
  )

const all = (sql: PgClient.PgClient) => (type: EntityType) =>
  sql`SELECT ${sql.literal(Columns)} FROM entities WHERE entity_type = ${type}::text
    ORDER BY slug COLLATE "C", id`.pipe(
    Effect.flatMap(decodeEntities),
    Effect.map((rows) => rows.map(toRecord)),
    orReadError(`all ${type}`)
  )

type Row = ReturnType<typeof toRow>

/** What a stored row shows the public (`Shown`), with its id: what the writes lock and compare. */
const ShownRow = Schema.Struct({
  id: Schema.String,
  slug: Schema.String,
  status: Schema.String,
  is_active: Schema.Boolean,
  is_private: Schema.Boolean
})
const decodeShown = decodeRows(ShownRow)
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

const unreadable = (sql: PgClient.PgClient) => (type: EntityType) =>
  sql`SELECT id, slug, status, is_private, is_active FROM entities
    WHERE entity_type = ${type}::text AND NOT (${sql.literal(Readable)})
    ORDER BY slug COLLATE "C", id`.pipe(
    Effect.flatMap(decodeShown),
    Effect.map((rows): ReadonlyArray<UnreadableRef> => rows),
    orReadError(`unreadable ${type}`)
  )

/** `unreadable`'s rows read as a json column: the same schema over the parsed value. */
const decodeShownJson = Schema.decodeUnknownEffect(Schema.Array(ShownRow))

const decodeUnreadable = (
  rows: ReadonlyArray<Record<string, unknown>>,
  hidden: ReadonlyArray<EntityType>
) => {
  // The one row that carries them (any row of a list; the only row of a lookup).
  const carrier = rows.find((row) => row.unreadable_0 !== null && row.unreadable_0 !== undefined)
  return Effect.forEach(hidden, (_, i) =>
    Effect.map(
      decodeShownJson(carrier?.[`unreadable_${i}`] ?? []),
      (refs): ReadonlyArray<UnreadableRef> => refs
    )
  )
}

const listWithUnreadable =
  (sql: PgClient.PgClient) => (q: EntityListQuery, hidden: ReadonlyArray<EntityType>) =>
    listStatement(sql, q, hidden).pipe(
      Effect.flatMap((rows) =>
        Effect.all({
          value: Effect.all({
            total:
              rows[0] === undefined ? Effect.succeed(0) : Effect.map(decodeTotal(rows[0]), (c) => c.total),
            items: Effect.map(decodeEntities(rows.filter((row) => row.id !== null)), (page) =>
              page.map(toRecord)
            )
          }),
          unreadable: decodeUnreadable(rows, hidden)
        })
      ),
      orReadError(`list ${q.entity_type}`)
    )

/** The condition naming entity `e` by slug or by id (an identifier that is not a UUID names none). */
export const entityMatch = (sql: PgClient.PgClient, by: "id" | "slug", identifier: string) =>
  by === "slug"
    ? sql`e.slug = ${identifier}::text`
    : isUuid(identifier)
      ? sql`e.id = ${identifier}::uuid`
      : sql`false`

/**
 * The entity (columns null when there is none) beside the unreadable entities
 * of `hidden`'s types, in one row.
 */
const findWithUnreadable =
  (sql: PgClient.PgClient) =>
  (type: EntityType, by: "id" | "slug", identifier: string, hidden: ReadonlyArray<EntityType>) => {
    const match = entityMatch(sql, by, identifier)
    return sql<Record<string, unknown>>`SELECT ${sql.literal(ColumnsOf("e"))}${unreadableColumns(sql, hidden)}
      FROM (SELECT 1) one LEFT JOIN entities e ON e.entity_type = ${type}::text AND ${match}`.pipe(
      Effect.flatMap((rows) =>
        Effect.all({
          value: Effect.map(decodeEntities(rows.filter((row) => row.id !== null)), (found) =>
            Option.map(Option.fromNullishOr(found[0]), toRecord)
          ),
          unreadable: decodeUnreadable(rows, hidden)
        })
      ),
      orReadError(`find ${type} ${identifier}`)
    )
  }

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

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  return EntityRepository.of({
    list: list(sql),
    findById: findById(sql),
    findBySlug: findBySlug(sql),
    findMany: findMany(sql),
    published: published(sql),
    countPublished: countPublished(sql),
    all: all(sql),
    unreadable: unreadable(sql),
    findWithUnreadable: findWithUnreadable(sql),
    listWithUnreadable: listWithUnreadable(sql),
    upsert: upsert(sql),
    setStatus: setStatus(sql)
  })
})

export const layer: Layer.Layer<EntityRepository, never, PgClient.PgClient> = Layer.effect(
  EntityRepository,
  make
)
