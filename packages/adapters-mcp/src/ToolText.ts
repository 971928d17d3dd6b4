/**
 * The MCP tools' answers as an agent reads them: plain text lines, with the
 * same data as structured content. A figure the API serves as null is said in
 * words ("not rated yet"), never printed as "null". Quantum readings are
 * QuantumText.ts's; what the API refused, ToolRefusals.ts's.
 */
import type { ContactReceipt } from "@ratings/domain/model/ContactRequest"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Incident, IncidentFeedPage } from "@ratings/domain/model/Incident"
import type { DomainsBody, MethodologyBody } from "@ratings/domain/model/Responses"
import type { Scorecard } from "@ratings/domain/model/Scorecard"

/** A tool's answer: its text, its data, and whether the call failed (isError in the tool result). */
export interface ToolAnswer {
  readonly text: string
  readonly structured?: Readonly<Record<string, unknown>> | undefined
  readonly isError?: boolean | undefined
}

/** No entity the caller may see has this identifier (of this type, or of any type when none is given). */
export const notFound = (type: EntityType | undefined, identifier: string): ToolAnswer =>
  type === undefined
    ? { text: `no rating found for ${identifier}`, structured: { found: false, identifier } }
    : {
        text: `no rating found for ${type} ${identifier}`,
        structured: { found: false, entity_type: type, identifier }
      }

/** get_rating without a type, when entities of several types have the slug: which, and how to choose. */
export const severalTypes = (
  identifier: string,
  matches: ReadonlyArray<{ readonly type: EntityType; readonly record: EntityLine["record"] }>
): ToolAnswer => {
  const types = matches.map((m) => m.type)
  return {
    text: [
      `${matches.length} rated entities have the slug ${identifier}, one of each of these types: ` +
        `${types.join(", ")}. Call get_rating again with entity_type set to the one meant:`,
      ...matches.map(({ type, record }) => `- ${record.name} (${type} ${record.slug}, id ${record.id})`)
    ].join("\n"),
    structured: {
      found: true,
      several_types: true,
      identifier,
      entity_types: types,
      items: matches.map(({ type, record }) => ({
        entity_type: type,
        id: record.id,
        slug: record.slug,
        name: record.name
      }))
    }
  }
}

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

/** The caller's own receipt: one wording whether or not the request repeats an open one, so it tells nothing else. */
export const formatReceipt = (receipt: ContactReceipt): ToolAnswer => ({
  text:
    `Coverage request received: rate ${receipt.protocol_name}${receipt.entity_type === null ? "" : ` (${receipt.entity_type})`}. ` +
    `Reference ${receipt.id}, status ${receipt.status}, received ${receipt.created_at}; the operators may answer ` +
    `${receipt.contact_email}.`,
  structured: { ...receipt }
})
