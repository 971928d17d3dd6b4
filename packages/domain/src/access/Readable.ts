/**
 * The readable rule (spec part 2 "Visibility", part 3): a caller without the
 * admin bypass reads an entity only while it is published, active and public.
 * `ReadableFields` holds the value each field must have; `requiredFields` says
 * which of them a read checks, given the bypass it has (an admin may see
 * inactive or unpublished records, never private ones in lists or on detail).
 * The predicates here and the SQL adapter's WHERE clauses are both built from
 * these two, and the EntityRepository contract holds the stores to them.
 */
import type { EntityStatus } from "../model/Entity.ts"

/** The fields the rule reads, as records and the entities table name them. */
export interface ReadableRecord {
  readonly status: EntityStatus | (string & {})
  readonly is_active: boolean
  readonly is_private: boolean
}

export type ReadableField = keyof ReadableRecord

/** The value each field has on a readable entity. */
export const ReadableFields = {
  status: "published",
  is_active: true,
  is_private: false
} as const satisfies { readonly [F in ReadableField]: ReadableRecord[F] }

/** The admin bypass a read may have: inactive records shown, unpublished records shown. */
export interface ReadBypass {
  readonly include_inactive: boolean
  readonly include_unpublished: boolean
}

const Every: ReadonlyArray<ReadableField> = ["status", "is_active", "is_private"]
const WithoutStatus: ReadonlyArray<ReadableField> = ["is_active", "is_private"]
const WithoutActive: ReadonlyArray<ReadableField> = ["status", "is_private"]
const PrivateOnly: ReadonlyArray<ReadableField> = ["is_private"]

/** The fields a read with this bypass checks (a fixed array per bypass: nothing allocated per call). */
export const requiredFields = (bypass: ReadBypass): ReadonlyArray<ReadableField> =>
  bypass.include_inactive
    ? bypass.include_unpublished
      ? PrivateOnly
      : WithoutActive
    : bypass.include_unpublished
      ? WithoutStatus
      : Every

/** Whether the record has the readable value of each of `fields`. */
export const holdsFields = (record: ReadableRecord, fields: ReadonlyArray<ReadableField>): boolean => {
  for (const field of fields) if (record[field] !== ReadableFields[field]) return false
  return true
}

/** The readable rule: published, active and public. */
export const isReadable = (record: ReadableRecord): boolean => holdsFields(record, Every)

/**
 * Active and public, whatever the status: what lists hide otherwise (spec part
 * 2), and what may still be named while unpublished (a chain quantum rows match,
 * a bridge's validator_set_owner).
 */
export const VisibleFields = requiredFields({ include_inactive: false, include_unpublished: true })

export const isVisible = (record: ReadableRecord): boolean => holdsFields(record, VisibleFields)
