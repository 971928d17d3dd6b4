/**
 * The `entities` table's rows: shared fields are columns, each type's own
 * fields live in `details` (jsonb), except a vault's curator_id and
 * is_framework, which lists filter on. Rows also store the list filter's keys
 * (categories lowercased, name_lower, symbol_lower, chain_slugs). A record
 * reads back as written, but for those categories, timestamps in UTC in the
 * wire form (`isoTimestamp`), uuids in lowercase, and a token's absent shared
 * fields present and empty (fields kept in `details` keep their absence).
 */
import { listKeysOf } from "@ratings/domain/access/ListFilter"
import { type EntityRecord, EntityFields, EntityStatus } from "@ratings/domain/model/Entity"
import { EntityType } from "@ratings/domain/model/EntityType"
import type { StoredEntity } from "@ratings/domain/ports/EntityRepository"
import { Schema } from "effect"
import { decodeRows, isoText } from "../PgRows.ts"

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
export type EntityRow = typeof EntityRow.Type

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
export const Columns = ColumnNames.join(", ")
export const ColumnsOf = (alias: string) => ColumnNames.map((c) => `${alias}.${c}`).join(", ")

const VaultColumns = new Set(["curator_id", "is_framework"])

/** The record keys stored as shared columns (every column but the type, the vault's and `details`). */
const SharedKeys = new Set(
  ColumnNames.filter((c) => c !== "entity_type" && c !== "details" && !VaultColumns.has(c))
)

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

export type Row = ReturnType<typeof toRow>

/** What a stored row shows the public (`Shown`), with its id: what the writes lock and compare. */
export const ShownRow = Schema.Struct({
  id: Schema.String,
  slug: Schema.String,
  status: Schema.String,
  is_active: Schema.Boolean,
  is_private: Schema.Boolean
})
export const decodeShown = decodeRows(ShownRow)
