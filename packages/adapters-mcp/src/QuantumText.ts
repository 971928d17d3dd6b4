/**
 * Quantum readiness as the tools answer it: a reading without qri, band or
 * stage is "not assessed" (api-facts: clients treat such rows as unusable),
 * in the text and in the structured content alike, never a null.
 */
import {
  isUsableReading,
  type QuantumChainResponse,
  type QuantumLeagueResponse,
  type QuantumRow
} from "@ratings/domain/model/Quantum"
import type { ToolAnswer } from "./ToolText.ts"

const NotAssessed = "not assessed"

/** A reading in words and as data without nulls: the figures when usable, else "not assessed". */
const reading = (
  r: Pick<QuantumRow, "qri" | "band" | "band_label" | "stage" | "hybrid" | "danger" | "ci">
) =>
  isUsableReading(r)
    ? {
        words:
          `QRI ${r.qri}, band ${r.band}${r.band_label === null ? "" : ` (${r.band_label})`}, stage ${r.stage}` +
          `, hybrid signatures ${r.hybrid}` +
          (r.danger === true ? ", danger flagged" : ""),
        data: {
          assessed: true,
          qri: r.qri,
          band: r.band,
          ...(r.band_label === null ? {} : { band_label: r.band_label }),
          stage: r.stage,
          hybrid: r.hybrid,
          ...(r.danger === null ? {} : { danger: r.danger }),
          ...(r.ci === null ? {} : { ci: r.ci })
        }
      }
    : { words: NotAssessed, data: { assessed: false, reading: NotAssessed } }

const sourceLine = (p: {
  readonly source: string
  readonly source_url: string
  readonly as_of?: string
  readonly stale?: true
}) =>
  `Source: ${p.source} (${p.source_url})` +
  (p.as_of === undefined ? "" : `, as of ${p.as_of}`) +
  (p.stale === true ? " (stale: the source could not be refreshed)" : "")

export const formatQuantumLeague = (body: QuantumLeagueResponse): ToolAnswer => {
  if (body.available === false)
    return {
      text: `Quantum readiness is not available: ${body.reason}.\n${body.attribution}`,
      structured: { available: false, reason: body.reason, source: body.source }
    }
  const rows = body.rows.map((row) => ({ row, reading: reading(row) }))
  const assessed = rows.filter((r) => r.reading.data.assessed).length
  return {
    text: [
      `Quantum readiness league table: ${rows.length} chains, ${assessed} assessed. ${sourceLine(body)}`,
      ...rows.map(
        ({ row, reading }) =>
          `- ${row.name} (${row.slug}): ${reading.words}` +
          (row.matched_chain_slug === null ? "" : `; this service's chain ${row.matched_chain_slug}`)
      ),
      ...(body.rows_skipped === 0 ? [] : [`${body.rows_skipped} source rows could not be read.`]),
      "Shown beside ratings; it never feeds grades.",
      body.attribution
    ].join("\n"),
    structured: {
      available: true,
      source: body.source,
      source_url: body.source_url,
      as_of: body.as_of,
      ...(body.stale === true ? { stale: true } : {}),
      rows: rows.map(({ row, reading }) => ({
        slug: row.slug,
        name: row.name,
        profile: row.profile,
        ...(row.matched_chain_slug === null ? {} : { matched_chain_slug: row.matched_chain_slug }),
        ...reading.data
      })),
      rows_skipped: body.rows_skipped
    }
  }
}

export const formatQuantumChain = (chain: string, body: QuantumChainResponse): ToolAnswer => {
  if (body.available === false)
    return {
      text: `Quantum readiness of ${chain}: ${NotAssessed} (${body.reason}).`,
      structured: { available: false, chain, reading: NotAssessed, reason: body.reason }
    }
  const r = reading(body)
  return {
    text: [
      `Quantum readiness of ${body.chain_slug}: ${r.words}.`,
      sourceLine(body),
      "Shown beside ratings; it never feeds grades.",
      body.attribution
    ].join("\n"),
    structured: {
      available: true,
      chain_slug: body.chain_slug,
      source: body.source,
      source_url: body.source_url,
      as_of: body.as_of,
      ...(body.stale === true ? { stale: true } : {}),
      ...r.data
    }
  }
}
