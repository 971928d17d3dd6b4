/**
 * The reads of the EntityRepository on Postgres. The readable rule
 * (ReadableSql.ts) and the list filter's criteria (access/ListFilter.ts) come
 * from the domain: lists write their WHERE from the criteria, page in the
 * database (ORDER BY slug COLLATE "C", id) and count under the same WHERE.
 */
import type { PgClient } from "@effect/sql-pg"
import { type EntityListQuery, listCriteriaOf } from "@ratings/domain/access/ListFilter"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { EntityRepository, ListPosition, UnreadableRef } from "@ratings/domain/ports/EntityRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Option, Schema } from "effect"
import type { SqlError, Statement } from "effect/sql"
import { decodeRows, orReadError } from "../PgRows.ts"
import { isUuid } from "../PgTransaction.ts"
import { readableSql, requiredSql } from "../ReadableSql.ts"
import { Columns, ColumnsOf, decodeEntities, decodeShown, ShownRow, toRecord } from "./EntityRows.ts"

type Reads = Omit<EntityRepository["Service"], "upsert" | "setStatus">

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

export const reads = (sql: PgClient.PgClient): Reads => ({
  list: list(sql),
  findById: findById(sql),
  findBySlug: findBySlug(sql),
  findMany: findMany(sql),
  published: published(sql),
  countPublished: countPublished(sql),
  all: all(sql),
  unreadable: unreadable(sql),
  findWithUnreadable: findWithUnreadable(sql),
  listWithUnreadable: listWithUnreadable(sql)
})
