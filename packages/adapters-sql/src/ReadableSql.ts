/**
 * The domain's readable rule (access/Readable.ts) as SQL over the entities
 * table, whose columns bear the record's field names: one condition per field
 * a read checks, written from `ReadableFields`. Values are literals, not
 * parameters, so that the planner can match the partial index entities_listed,
 * whose predicate is the whole rule.
 */
import {
  type ReadBypass,
  type ReadableField,
  ReadableFields,
  requiredFields,
  VisibleFields
} from "@ratings/domain/access/Readable"

const conditionOf = (field: ReadableField, alias: string): string => {
  const column = alias === "" ? field : `${alias}.${field}`
  const value: string | boolean = ReadableFields[field]
  if (value === true) return column
  if (value === false) return `NOT ${column}`
  return `${column} = '${value.replaceAll("'", "''")}'`
}

/** The conditions, ANDed, that `fields` hold on the row `alias` (no alias: the table's own columns). */
export const fieldsSql = (fields: ReadonlyArray<ReadableField>, alias = ""): string =>
  fields.map((field) => conditionOf(field, alias)).join(" AND ")

/** Published, active and public. */
export const readableSql = (alias = ""): string =>
  fieldsSql(requiredFields({ include_inactive: false, include_unpublished: false }), alias)

/** Active and public, whatever the status. */
export const visibleSql = (alias = ""): string => fieldsSql(VisibleFields, alias)

const Written = new Map<ReadonlyArray<ReadableField>, string>()

/** The conditions a read with this admin bypass checks (`requiredFields`), written once per bypass. */
export const requiredSql = (bypass: ReadBypass): string => {
  const fields = requiredFields(bypass)
  let text = Written.get(fields)
  if (text === undefined) {
    text = fieldsSql(fields)
    Written.set(fields, text)
  }
  return text
}
