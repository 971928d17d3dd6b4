/**
 * Post-quantum readiness payloads (spec part 4 "Quantum readiness" rules 1-4;
 * api-facts). The data is a third-party dataset (LayerQu): it is attributed on
 * every payload, never feeds grades, and may be served stale with a flag.
 * Unknown or unassessed chains are a 200 with `available: false` and a reason.
 */
import { Schema } from "effect"
import { IsoDateTime, NonNegativeInt, Slug } from "./Primitives.ts"

export const Qri = Schema.NullOr(
  Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 }))
).annotate({
  description: "Quantum Readiness Index, 0-100; null when the source gives none"
})
export const Band = Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 7 }))).annotate({
  description: "Readiness band, 1 to 7; null when the source gives none"
})
export const Stage = Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 5 }))).annotate({
  description: "Migration stage, 0 to 5 (the source's headline figure); null when the source gives none"
})

/** The reading fields shared by a league-table row and a single-chain payload. */
const ReadingFields = {
  qri: Qri,
  band: Band,
  band_label: Schema.NullOr(Schema.String).annotate({
    description: "Label of the band (for example Acknowledged)"
  }),
  stage: Stage,
  hybrid: Schema.String.annotate({
    description: "Hybrid-signature status as the source words it (for example FAIL)"
  }),
  danger: Schema.NullOr(Schema.Boolean).annotate({
    description: "Danger flag; null when the source does not publish it"
  }),
  ci: Schema.NullOr(Schema.Finite).annotate({ description: "The source's ci figure, as published" })
}

/** Present only when true: an upstream refresh failed and an expired snapshot is served. */
const Stale = Schema.optionalKey(
  Schema.Literal(true).annotate({
    description: "Present (true) only when an upstream refresh failed and an expired snapshot is served"
  })
)

const AttributionFields = {
  source: Schema.String.annotate({ description: "Name of the third-party source" }),
  source_url: Schema.String,
  attribution: Schema.String.annotate({ description: "Attribution text to show with the data" })
}

export const QuantumRow = Schema.Struct({
  slug: Schema.String.annotate({ description: "The source's own slug for the chain" }),
  name: Schema.String,
  profile: Schema.String.annotate({ description: "Chain profile as the source gives it (for example L1)" }),
  ...ReadingFields,
  matched_chain_slug: Schema.NullOr(Slug).annotate({
    description:
      "Service chain slug when the chain exists in the service (drafts included, not necessarily rated)"
  })
}).annotate({ identifier: "QuantumRow", description: "One chain of the quantum-readiness league table" })
export type QuantumRow = typeof QuantumRow.Type

export const QuantumLeagueTable = Schema.Struct({
  available: Schema.Literal(true),
  ...AttributionFields,
  as_of: IsoDateTime.annotate({ description: "Snapshot time of the data" }),
  stale: Stale,
  rows: Schema.Array(QuantumRow),
  rows_skipped: NonNegativeInt.annotate({
    description: "Source rows left out because they could not be read"
  })
}).annotate({
  identifier: "QuantumLeagueTable",
  description: "Post-quantum readiness league table from a third-party source; never feeds grades"
})
export type QuantumLeagueTable = typeof QuantumLeagueTable.Type

export const QuantumChainReading = Schema.Struct({
  available: Schema.Literal(true),
  chain_slug: Slug,
  ...ReadingFields,
  ...AttributionFields,
  as_of: IsoDateTime,
  stale: Stale
}).annotate({
  identifier: "QuantumChainReading",
  description: "Post-quantum readiness of one chain, by service chain slug"
})
export type QuantumChainReading = typeof QuantumChainReading.Type

export const QuantumUnavailable = Schema.Struct({
  available: Schema.Literal(false),
  reason: Schema.String.annotate({
    description: "Why nothing is served (for example not assessed by source)"
  }),
  ...AttributionFields
}).annotate({
  identifier: "QuantumUnavailable",
  description:
    "Nothing could be served: an unknown or unassessed chain, or the source unreachable with no snapshot"
})
export type QuantumUnavailable = typeof QuantumUnavailable.Type

export const QuantumLeagueResponse = Schema.Union([QuantumLeagueTable, QuantumUnavailable]).annotate({
  description: "The league table, or available: false with a reason"
})
export const QuantumChainResponse = Schema.Union([QuantumChainReading, QuantumUnavailable]).annotate({
  description: "One chain's reading, or available: false with a reason (HTTP 200 either way)"
})
export type QuantumLeagueResponse = typeof QuantumLeagueResponse.Type
export type QuantumChainResponse = typeof QuantumChainResponse.Type

/** Clients treat a reading as usable only when qri, band and stage are all present. */
export const isUsableReading = <
  R extends { readonly qri: number | null; readonly band: number | null; readonly stage: number | null }
>(
  row: R
): row is R & { readonly qri: number; readonly band: number; readonly stage: number } =>
  row.qri !== null && row.band !== null && row.stage !== null
