/**
 * Reading the third-party quantum-readiness dataset (LayerQu) row by row, and
 * matching its rows to service chains (spec part 4 "Quantum readiness" rule 1).
 *
 * The upstream is not ours: one malformed row must not cost the whole table, so
 * each row is decoded on its own and a bad one is skipped and counted
 * (`rows_skipped`). Matching is equality after normalisation, never fuzzy: a
 * false match would show one chain's reading under another chain's slug, which
 * is worse than showing the row unmatched.
 */
import { Effect, Option, Schema } from "effect"
import { nulPaths } from "../model/Primitives.ts"
import type { EntityStatus } from "../model/Entity.ts"
import { QuantumRow } from "../model/Quantum.ts"

/** A chain of the service database as matching needs it; every status counts, drafts included. */
export interface ServiceChain {
  readonly slug: string
  readonly name: string
  readonly status: EntityStatus
}

/** Absent upstream means "the source gives none": the same as the null the wire schema allows. */
const nullWhenAbsent = <S extends Schema.Constraint>(schema: Schema.NullOr<S>) =>
  Schema.withDecodingDefaultKey<Schema.NullOr<S>>(Effect.succeed(null))(schema)

const fields = QuantumRow.fields

/**
 * The most rows a dataset may hold. The table is a league of chains (70-odd
 * when written); a dataset of more rows is not that table (a changed export,
 * a runaway or hostile upstream) and is refused whole, never cut to a first
 * part (see ADR 0008). With `MaxQuantumTextLength` it bounds what every read
 * of the table sends.
 */
export const MaxQuantumRows = 1000

/** The longest text field of an upstream row (slug, name, profile, band_label, hybrid); a longer one costs the row. */
export const MaxQuantumTextLength = 200

const text = <S extends Schema.String>(schema: S) => schema.check(Schema.isMaxLength(MaxQuantumTextLength))

/**
 * One row as the upstream publishes it: the wire row without our
 * `matched_chain_slug`. Identity fields and `hybrid` are required; a reading
 * field the source dropped (as it did with `danger`) decodes to null instead of
 * costing the row. Text fields are at most `MaxQuantumTextLength` long.
 */
export const UpstreamQuantumRow = Schema.Struct({
  slug: text(fields.slug),
  name: text(fields.name),
  profile: text(fields.profile),
  qri: nullWhenAbsent(fields.qri),
  band: nullWhenAbsent(fields.band),
  band_label: nullWhenAbsent(Schema.NullOr(text(Schema.String))),
  stage: nullWhenAbsent(fields.stage),
  hybrid: text(fields.hybrid),
  danger: nullWhenAbsent(fields.danger),
  ci: nullWhenAbsent(fields.ci)
}).annotate({ identifier: "UpstreamQuantumRow", description: "One row of the LayerQu dataset" })
export type UpstreamQuantumRow = typeof UpstreamQuantumRow.Type

export interface ReadRows {
  readonly rows: ReadonlyArray<UpstreamQuantumRow>
  readonly rows_skipped: number
}

const decodeRow = Schema.decodeUnknownOption(UpstreamQuantumRow)

/**
 * Decodes each raw row on its own; malformed rows are left out and counted,
 * never fatal. A row whose text holds a NUL character is malformed: it could
 * not be stored.
 */
export const readRows = (raw: ReadonlyArray<unknown>): ReadRows => {
  const rows: Array<UpstreamQuantumRow> = []
  let skipped = 0
  for (const item of raw) {
    const row = decodeRow(item)
    if (Option.isSome(row) && nulPaths(row.value).length === 0) rows.push(row.value)
    else skipped++
  }
  return { rows, rows_skipped: skipped }
}

/**
 * Case-, space- and punctuation-insensitive key of a slug or name, so that
 * "BNB Chain", "bnb-chain" and "BNB_chain" agree. Letters and digits of any
 * script are kept, so a name written outside Latin script still has a key.
 */
export const normaliseChainKey = (raw: string): string =>
  raw
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "")

export type ChainMatcher = (row: { readonly slug: string; readonly name: string }) => string | null

/** Keys held by two or more chains: such a key names no chain in particular. */
const AMBIGUOUS = Symbol("ambiguous")

const indexBy = (
  chains: ReadonlyArray<ServiceChain>,
  keyOf: (chain: ServiceChain) => string
): Map<string, string | typeof AMBIGUOUS> => {
  const index = new Map<string, string | typeof AMBIGUOUS>()
  for (const chain of chains) {
    const key = normaliseChainKey(keyOf(chain))
    if (key === "") continue
    const held = index.get(key)
    index.set(key, held === undefined || held === chain.slug ? chain.slug : AMBIGUOUS)
  }
  return index
}

/**
 * Builds a matcher over the service chains (all statuses). The row's slug is
 * tried against service slugs first, then the row's name against service
 * names. A key two service chains share matches neither of them, so the
 * answer never depends on the order the directory listed them in.
 */
export const makeChainMatcher = (chains: ReadonlyArray<ServiceChain>): ChainMatcher => {
  const bySlug = indexBy(chains, (c) => c.slug)
  const byName = indexBy(chains, (c) => c.name)
  const lookup = (index: Map<string, string | typeof AMBIGUOUS>, raw: string): string | undefined => {
    const key = normaliseChainKey(raw)
    const hit = key === "" ? undefined : index.get(key)
    return hit === AMBIGUOUS ? undefined : hit
  }
  return (row) => lookup(bySlug, row.slug) ?? lookup(byName, row.name) ?? null
}

/** Sets `matched_chain_slug` on every row: the service chain's slug, or null when the service has no such chain. */
export const matchRows = (
  rows: ReadonlyArray<UpstreamQuantumRow | QuantumRow>,
  chains: ReadonlyArray<ServiceChain>
): ReadonlyArray<QuantumRow> => {
  const match = makeChainMatcher(chains)
  return rows.map((row) => ({
    slug: row.slug,
    name: row.name,
    profile: row.profile,
    qri: row.qri,
    band: row.band,
    band_label: row.band_label,
    stage: row.stage,
    hybrid: row.hybrid,
    danger: row.danger,
    ci: row.ci,
    matched_chain_slug: match(row)
  }))
}
