/**
 * The MCP tools' answers as an agent reads them: plain text lines, with the
 * same data as structured content. A figure the API serves as null is said in
 * words ("not rated yet", "not assessed"), never printed as "null": a
 * quantum reading without qri, band or stage is "not assessed" (api-facts:
 * clients treat such rows as unusable), in the text and in the structured
 * content alike.
 *
 * `refusal` turns what the API refused into an answer: 404 "no rating found",
 * 401/403 on a tiered route the tier needed and how to get a key, 429 when to
 * retry, 422 what was wrong.
 */
import type { Tier } from "@ratings/domain/model/Caller"
import type { ContactReceipt } from "@ratings/domain/model/ContactRequest"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Incident, IncidentFeedPage } from "@ratings/domain/model/Incident"
import {
  isUsableReading,
  type QuantumChainResponse,
  type QuantumLeagueResponse,
  type QuantumRow
} from "@ratings/domain/model/Quantum"
import type { DomainsBody, MethodologyBody } from "@ratings/domain/model/Responses"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import { Data, Schema } from "effect"
import { HttpClientError } from "effect/http"
import { InvalidKeyError, InvalidTokenError } from "@ratings/adapters-http/api/Authentication"
import {
  InsufficientTierError,
  MissingKeyError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  ValidationError
} from "@ratings/adapters-http/api/Errors"

/** A tool's answer: its text, its data, and whether the call failed (isError in the tool result). */
export interface ToolAnswer {
  readonly text: string
  readonly structured?: Readonly<Record<string, unknown>> | undefined
  readonly isError?: boolean | undefined
}

/** How a caller without the tier a tool needs gets a key: said in every tier explanation. */
export const HowToGetAKey =
  "To get a key, ask the operator of this ratings service for an API key of that tier (operators issue them " +
  "with `ratings keys create --tier pro`). Then give it to your MCP client: RATINGS_API_KEY for `ratings mcp` " +
  "(stdio), or the header `Authorization: Bearer <key>` for the /mcp endpoint."

const tierName = (tier: Tier) => `${tier[0]!.toUpperCase()}${tier.slice(1)}`

const tiersFrom = (tier: Tier) => (tier === "enterprise" ? "an Enterprise" : `a ${tierName(tier)} or higher`)

export const notFound = (type: EntityType, identifier: string): ToolAnswer => ({
  text: `no rating found for ${type} ${identifier}`,
  structured: { found: false, entity_type: type, identifier }
})

export const invalidArguments = (what: string): ToolAnswer => ({
  text: `invalid arguments: ${what}`,
  isError: true
})

/** A figure 0-100 with one decimal as served. */
const score = (n: number) => `${n}/100`

const ratingPhrase = (card: Scorecard | undefined): string => {
  const grade = card?.letter_grade ?? card?.grade ?? null
  if (card === undefined || grade === null || card.composite_score === null) return "not rated yet"
  return `${grade}, composite ${score(card.composite_score)}`
}

export interface EntityLine {
  readonly type: EntityType
  readonly record: { readonly id: string; readonly name: string; readonly slug: string }
  readonly card: Scorecard | undefined
}

const ratingData = (card: Scorecard | undefined) =>
  card === undefined || card.composite_score === null
    ? { rated: false }
    : {
        rated: true,
        grade: card.letter_grade ?? card.grade,
        composite_score: card.composite_score
      }

/** A listing: a heading, then one line per entity with its grade. */
export const entityLines = (
  heading: string,
  lines: ReadonlyArray<EntityLine>,
  none: string,
  data: Readonly<Record<string, unknown>>
): ToolAnswer => ({
  text:
    lines.length === 0
      ? none
      : [
          `${heading}:`,
          ...lines.map(
            ({ type, record, card }) => `- ${record.name} (${type} ${record.slug}): ${ratingPhrase(card)}`
          )
        ].join("\n"),
  structured: {
    ...data,
    items: lines.map(({ type, record, card }) => ({
      entity_type: type,
      id: record.id,
      slug: record.slug,
      name: record.name,
      ...ratingData(card)
    }))
  }
})

interface RatedRecord {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly categories?: ReadonlyArray<string> | undefined
  readonly chains?: ReadonlyArray<{ readonly slug: string; readonly name: string }> | undefined
}

const dragLines = (card: {
  readonly largest_drag_hint: string | null
  readonly has_unrated_dependencies: boolean
}) => [
  ...(card.largest_drag_hint === null
    ? []
    : [`Largest dependency drag: ${card.largest_drag_hint.replace(/^largest drag:\s*/, "")}`]),
  ...(card.has_unrated_dependencies ? ["Some of its dependencies are not rated yet."] : [])
]

export const formatRating = (
  type: EntityType,
  record: RatedRecord,
  card: Scorecard | undefined
): ToolAnswer => {
  const title = `${record.name} (${type} ${record.slug}, id ${record.id})`
  const context = [
    ...(record.categories !== undefined && record.categories.length > 0
      ? [`Categories: ${record.categories.join(", ")}`]
      : []),
    ...(record.chains !== undefined && record.chains.length > 0
      ? [`Chains: ${record.chains.map((c) => c.slug).join(", ")}`]
      : [])
  ]
  const entity = { entity_type: type, id: record.id, slug: record.slug, name: record.name }
  if (card === undefined || card.composite_score === null || (card.letter_grade ?? card.grade) === null)
    return {
      text: [`${title}: not rated yet.`, ...context].join("\n"),
      structured: { found: true, ...entity, rated: false }
    }
  const grade = card.letter_grade ?? card.grade
  const intrinsic =
    card.intrinsic_composite_score === null || card.intrinsic_letter_grade === null
      ? []
      : [
          `Intrinsic (before dependency drag): ${card.intrinsic_letter_grade}, composite ${score(card.intrinsic_composite_score)}`
        ]
  const when = card.scorecard_published_at ?? card.last_rated_at
  return {
    text: [
      `${title}`,
      `Grade: ${grade}, composite ${score(card.composite_score)} (after dependency drag)`,
      ...intrinsic,
      ...dragLines(card),
      `Scorecard version ${card.scorecard_version}${when === null ? "" : `, published ${when}`}`,
      ...context
    ].join("\n"),
    structured: {
      found: true,
      ...entity,
      rated: true,
      grade,
      composite_score: card.composite_score,
      intrinsic_letter_grade: card.intrinsic_letter_grade,
      intrinsic_composite_score: card.intrinsic_composite_score,
      largest_drag_hint: card.largest_drag_hint,
      has_unrated_dependencies: card.has_unrated_dependencies,
      scorecard_version: card.scorecard_version,
      published_at: when
    }
  }
}

export const formatBreakdown = (type: EntityType, body: DomainsBody): ToolAnswer => {
  const title = `${body.entity.name} (${type} ${body.entity.slug})`
  const grade = body.letter_grade ?? body.grade
  if (grade === null || body.composite_score === null)
    return {
      text: `${title}: not rated yet, so it has no domain scores.`,
      structured: { found: true, entity_type: type, slug: body.entity.slug, rated: false }
    }
  const domains = Object.entries(body.domain_scores)
  return {
    text: [
      `${title}: ${grade}, composite ${score(body.composite_score)}` +
        (body.intrinsic_letter_grade === null || body.intrinsic_composite_score === null
          ? ""
          : ` (intrinsic ${body.intrinsic_letter_grade}, ${score(body.intrinsic_composite_score)}, before dependency drag)`),
      "Domain scores (0 to 1):",
      ...domains.map(([domain, value]) => `- ${domain}: ${value}`),
      ...dragLines(body),
      ...(body.last_rated_at === null ? [] : [`Last rated ${body.last_rated_at}`])
    ].join("\n"),
    structured: {
      found: true,
      entity_type: type,
      slug: body.entity.slug,
      name: body.entity.name,
      rated: true,
      grade,
      composite_score: body.composite_score,
      intrinsic_letter_grade: body.intrinsic_letter_grade,
      intrinsic_composite_score: body.intrinsic_composite_score,
      domain_scores: body.domain_scores,
      largest_drag_hint: body.largest_drag_hint,
      has_unrated_dependencies: body.has_unrated_dependencies,
      last_rated_at: body.last_rated_at
    }
  }
}

const usd = (n: number) => `$${Math.round(n).toLocaleString("en-US")}`

const incidentLine = (i: Incident) =>
  `- ${i.detected_at} [${i.status}] ${i.protocol_name}` +
  (i.slug === null ? " (not a rated protocol)" : ` (rated protocol ${i.slug})`) +
  (i.chain === null ? "" : ` on ${i.chain}`) +
  `: ${i.exploit_class}` +
  (i.loss_estimate_usd === null ? ", loss not estimated" : `, estimated loss ${usd(i.loss_estimate_usd)}`) +
  `, confidence ${i.confidence_bps / 100}%` +
  `, ${i.source_count} source${i.source_count === 1 ? "" : "s"}` +
  (i.resolved_at === null
    ? ""
    : `; resolved ${i.resolved_at}${i.resolution === null ? "" : ` (${i.resolution})`}`)

export const formatIncidents = (
  page: IncidentFeedPage,
  args: { readonly since?: string | undefined; readonly min_status?: string | undefined }
): ToolAnswer => {
  const scope =
    `at or above ${args.min_status ?? "confirmed"}` + (args.since === undefined ? "" : ` since ${args.since}`)
  return {
    text:
      page.items.length === 0
        ? `No incidents ${scope}.`
        : [
            `${page.total} incident${page.total === 1 ? "" : "s"} ${scope}, newest first` +
              (page.items.length < page.total ? ` (showing ${page.items.length})` : "") +
              ":",
            ...page.items.map(incidentLine)
          ].join("\n"),
    structured: { total: page.total, items: page.items }
  }
}

export const formatMethodology = (m: MethodologyBody): ToolAnswer => ({
  text: [
    `${m.name}, version ${m.version} (${m.total_questions} questions)`,
    "Grade scale (minimum composite, after rounding):",
    ...m.grade_scale.map((band) => `- ${band.grade}: ${band.min_score} or more (${band.description})`),
    `Rounding: ${m.grade_rounding}`,
    "Entity types:",
    ...m.entity_types.map((t) => `- ${t.type}: ${t.questions} questions; domains ${t.domains.join(", ")}`),
    `Methodology: ${m.methodology_url}`,
    `Attribution: ${m.attribution}`
  ].join("\n"),
  structured: m as unknown as Record<string, unknown>
})

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

/** The caller's own receipt: one wording whether or not the request repeats an open one, so it tells nothing else. */
export const formatReceipt = (receipt: ContactReceipt): ToolAnswer => ({
  text:
    `Coverage request received: rate ${receipt.protocol_name}${receipt.entity_type === null ? "" : ` (${receipt.entity_type})`}. ` +
    `Reference ${receipt.id}, status ${receipt.status}, received ${receipt.created_at}; the operators may answer ` +
    `${receipt.contact_email}.`,
  structured: { ...receipt }
})

const tierExplanation = (what: string, required: Tier, current: Tier | undefined): ToolAnswer => ({
  text:
    `${what} needs ${tiersFrom(required)} API key` +
    (current === undefined
      ? "; this call was made without a key."
      : `; the key used is ${current === "anonymous" ? "not a key" : `a ${tierName(current)} key`}.`) +
    ` ${HowToGetAKey}`,
  structured: { needs_tier: required, ...(current === undefined ? {} : { tier: current }) }
})

/** An answer of the API that the contract's schema does not decode (the typed client's response decoding). */
export class UnexpectedAnswer extends Data.TaggedError("UnexpectedAnswer")<{ readonly cause: unknown }> {}

/**
 * A request the contract refuses, before it is sent: the schema's message,
 * `Input should be ...\n  at ["since"]`, as `since: Input should be ...`.
 */
const issuesOf = (message: string) =>
  message.split(/\n(?=\S)/).map((issue) => {
    const at = /\n\s*at \[(.*)\]\s*$/.exec(issue)
    return at === null
      ? { argument: "", msg: issue.trim() }
      : { argument: at[1]!.replace(/"/g, "").replace(/\]\[/g, "."), msg: issue.slice(0, at.index).trim() }
  })

const refused = (what: string, message: string): ToolAnswer => {
  const issues = issuesOf(message)
  return {
    text: `${what}: ${issues.map((i) => (i.argument === "" ? i.msg : `${i.argument}: ${i.msg}`)).join("; ")}`,
    structured: { invalid: issues },
    isError: true
  }
}

const invalidRequest = (message: string): ToolAnswer => refused("invalid request", message)

/** Arguments the tool's schema refuses, each named: `invalid arguments: entity_type: Expected ...`. */
export const invalidArgumentsOf = (message: string): ToolAnswer => refused("invalid arguments", message)

/** `["query", "since"]` as `since`: where a 422 found the problem, named as the tool's argument. */
const locationOf = (loc: ReadonlyArray<string | number>) =>
  loc.filter((part, index) => !(index === 0 && ["query", "path", "body"].includes(String(part)))).join(".")

/**
 * What the API refused, as the tool's answer. `what` names the tool's data
 * ("the domain breakdown"), `tier` the tier its route needs.
 */
export const refusal = (error: unknown, what: string, tier: Tier): ToolAnswer => {
  if (error instanceof MissingKeyError) return tierExplanation(what, tier, undefined)
  if (error instanceof InsufficientTierError)
    return tierExplanation(what, error.detail.required_tier, error.detail.tier)
  if (error instanceof RateLimitedError)
    return {
      text: `rate limited, retry after ${error.detail.retry_after} seconds`,
      structured: { rate_limited: true, retry_after: error.detail.retry_after },
      isError: true
    }
  if (error instanceof ValidationError)
    return {
      text: `invalid request: ${error.detail.map((issue) => `${locationOf(issue.loc)}: ${issue.msg}`).join("; ")}`,
      structured: {
        invalid: error.detail.map((issue) => ({ argument: locationOf(issue.loc), msg: issue.msg }))
      },
      isError: true
    }
  if (error instanceof InvalidKeyError || error instanceof InvalidTokenError)
    return {
      text:
        "the API refused the credential sent (401): the key is unknown, revoked or malformed. Check " +
        `RATINGS_API_KEY or the Authorization header, or leave it out to call anonymously. ${HowToGetAKey}`,
      isError: true
    }
  if (error instanceof NotFoundError) return { text: "no rating found", structured: { found: false } }
  if (error instanceof ServiceUnavailableError)
    return { text: "the ratings service is unavailable right now (503); retry later", isError: true }
  if (HttpClientError.isHttpClientError(error)) {
    const status = error.response?.status
    return {
      text:
        status === undefined
          ? `the ratings API could not be reached (${error.reason._tag}` +
            `${"description" in error.reason && error.reason.description !== undefined ? `: ${error.reason.description}` : ""}` +
            "); check the API URL and retry"
          : `the ratings API answered ${status} unexpectedly; retry later`,
      isError: true
    }
  }
  if (error instanceof UnexpectedAnswer)
    return { text: "the ratings API answered in a shape this tool does not know; retry later", isError: true }
  // The typed client checks a request against the contract before sending it, with the API's own messages.
  if (Schema.isSchemaError(error)) return invalidRequest(error.message)
  return { text: "the tool failed unexpectedly; retry later", isError: true }
}
