/**
 * Seed data for the HTTP tests: for each of the seven types, rated and unrated
 * public records, and the records that must never leak (private, inactive,
 * unpublished ones in each of draft, scoring and approved, and a framework-tier
 * vault), with scorecards in every status, rating history and a small rubric.
 * Every record is valid against the domain's schemas, because responses are
 * encoded (and so checked) against them.
 */
import type { Caller } from "@ratings/domain/model/Caller"
import { Caller as Callers } from "@ratings/domain/model/Caller"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import { type EntityType, EntityTypes } from "@ratings/domain/model/EntityType"
import type { Question } from "@ratings/domain/model/Question"
import { brandingOf } from "@ratings/domain/model/ServiceInfo"
import type { StoredEntity } from "@ratings/domain/ports/EntityRepository"
import type { HistoryEntryRecord, StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { defaultDomainWeights } from "@ratings/domain/scoring/ScoreEntity"

/** A deterministic v4-shaped UUID from a number, so ids read well in failures. */
export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

const T0 = "2026-06-01T00:00:00+00:00"
const T1 = "2026-07-01T00:00:00+00:00"
const T2 = "2026-08-01T00:00:00+00:00"

/** Ids are grouped by type (1000 apart) so every fixture id is unique and stable. */
const typeBase = (type: EntityType): number => (EntityTypes.indexOf(type) + 1) * 1000

export const Ethereum = { slug: "ethereum", name: "Ethereum" }
export const Arbitrum = { slug: "arbitrum", name: "Arbitrum One" }

type Kind = "alpha" | "beta" | "gamma" | "private" | "retired" | UnpublishedKind | "framework"

/** Kinds named after their entity status: seen by admins only (spec parts 2, 3 and 5 rule 4). */
export const UnpublishedKinds = ["draft", "scoring", "approved"] as const
export type UnpublishedKind = (typeof UnpublishedKinds)[number]
const isUnpublished = (kind: Kind): kind is UnpublishedKind =>
  (UnpublishedKinds as ReadonlyArray<Kind>).includes(kind)

const kindOffset: { readonly [K in Kind]: number } = {
  alpha: 1,
  beta: 2,
  gamma: 3,
  private: 4,
  retired: 5,
  draft: 6,
  framework: 7,
  scoring: 8,
  approved: 9
}

export const entityId = (type: EntityType, kind: Kind): string => uuid(typeBase(type) + kindOffset[kind])
export const slugOf = (type: EntityType, kind: Kind): string => `${type}-${kind}`

/** Categories per type: protocols and oracles hold at most one (single-select). */
const categoriesOf = (type: EntityType, kind: Kind): ReadonlyArray<string> => {
  switch (type) {
    case "protocol":
      return kind === "beta" ? ["dex"] : ["lending"]
    case "oracle":
      return ["price-feed"]
    case "bridge":
      return kind === "alpha" ? ["messaging", "light-client"] : ["messaging"]
    case "token":
      return kind === "alpha" ? ["stablecoin", "governance"] : ["governance"]
    default:
      return kind === "alpha" ? ["core", "l1"] : ["core"]
  }
}

const makeRecord = (type: EntityType, kind: Kind): EntityRecord => {
  const slug = slugOf(type, kind)
  const base = {
    id: entityId(type, kind),
    name: `${type[0]!.toUpperCase()}${type.slice(1)} ${kind[0]!.toUpperCase()}${kind.slice(1)}`,
    slug,
    status: isUnpublished(kind) ? kind : ("published" as const),
    categories: categoriesOf(type, kind),
    chains: kind === "gamma" ? [Arbitrum] : [Ethereum],
    urls: { website: `https://${slug}.example` },
    external_ids: kind === "alpha" ? { defillama: slug, coingecko_note: "no listing" } : {},
    description: kind === "alpha" ? `The ${kind} ${type}` : null,
    is_active: kind !== "retired",
    is_private: kind === "private",
    created_at: T0,
    updated_at: T1
  }
  switch (type) {
    case "token":
      return {
        ...base,
        symbol: `${type.slice(0, 1).toUpperCase()}${kind.toUpperCase()}`,
        chain: base.chains[0]!
      }
    case "bridge":
      return {
        ...base,
        signer_count: kind === "alpha" ? 13 : null,
        signing_threshold: kind === "alpha" ? 9 : null,
        has_message_attestation: kind === "alpha",
        pause_mechanism: kind === "alpha" ? "Guardian multisig can pause the message relayer" : null,
        validator_set_owner:
          kind === "alpha"
            ? {
                id: entityId("organisation", "draft"),
                slug: slugOf("organisation", "draft"),
                name: "Operator"
              }
            : null
      }
    case "vault": {
      const curated = kind === "alpha" || kind === "framework"
      return {
        ...base,
        curator_id: curated ? entityId("organisation", "alpha") : null,
        curator: curated
          ? {
              id: entityId("organisation", "alpha"),
              slug: slugOf("organisation", "alpha"),
              name: "Organisation Alpha"
            }
          : null,
        is_framework: kind === "framework"
      }
    }
    case "chain":
      return { ...base, chain_id: kind === "alpha" ? 1 : null }
    default:
      return base
  }
}

/** Two rubric questions per type (bridges fall back to the 62-question catalogue). */
export const questionsOf = (type: EntityType): ReadonlyArray<Question> =>
  type === "bridge"
    ? []
    : [
        {
          id: `${type.toUpperCase()}-SEC-01`,
          entity_type: type,
          domain: "security",
          text: "Has the code been audited by two independent firms?",
          weight: 2,
          max_score: 4,
          criteria: [
            { score: 0, description: "No audit" },
            { score: 4, description: "Two independent audits" }
          ],
          position: 0
        },
        {
          id: `${type.toUpperCase()}-SEC-02`,
          entity_type: type,
          domain: "security",
          text: "Is there a public bug bounty?",
          weight: 1,
          max_score: 4,
          criteria: [{ score: 4, description: "Bounty above 1M USD" }],
          position: 1
        }
      ]

let cardCounter = 0

const scorecardOf = (
  stored: StoredEntity,
  version: number,
  status: "draft" | "published" | "superseded"
): StoredScorecard => {
  const type = stored.entity_type
  const questions = questionsOf(type)
  const composite = 70 + version * 5
  const published = status !== "draft"
  return {
    id: uuid(900_000 + ++cardCounter),
    entity_id: stored.record.id,
    entity_type: type,
    status,
    scorecard_version: version,
    grade: "BBB",
    letter_grade: "BBB",
    composite_score: composite,
    intrinsic_composite_score: composite + 2,
    intrinsic_letter_grade: "A",
    largest_drag_hint: "chain: ethereum",
    has_unrated_dependencies: false,
    domain_scores: { security: 0.75 },
    mvc_gates: type === "chain" ? { finality: true, censorship_resistance: false } : null,
    last_rated_at: published ? T2 : null,
    scorecard_published_at: published ? (version === 1 ? T1 : T2) : null,
    domain_weights: defaultDomainWeights(type, stored.record.categories ?? []),
    answers: questions.map((q, i) => ({
      id: uuid(800_000 + cardCounter * 10 + i),
      question_id: q.id,
      domain: q.domain,
      score: i === 0 ? 3 : null,
      max_score: q.max_score,
      weight: q.weight,
      confidence: i === 0 ? "high" : "not_applicable",
      response: i === 0 ? "Two audits, 2025" : null,
      rationale: i === 0 ? "Audited by two firms" : "No bounty programme applies"
    })),
    dependencies: [],
    evidence: questions.slice(0, 1).map((q) => ({
      question_id: q.id,
      evidence: [
        { kind: "audit", url: "https://audits.example/report.pdf", excerpt: "No criticals", collected_at: T1 }
      ],
      reasoning: "Both reports close every finding"
    }))
  }
}

const historyOf = (card: StoredScorecard, reasoning: string): HistoryEntryRecord & { entity_id: string } => ({
  entity_id: card.entity_id,
  scorecard_id: card.id,
  scorecard_version: card.scorecard_version,
  grade: card.grade,
  letter_grade: card.letter_grade,
  composite_score: card.composite_score,
  intrinsic_composite_score: card.intrinsic_composite_score,
  intrinsic_letter_grade: card.intrinsic_letter_grade,
  published_at: card.scorecard_published_at ?? T2,
  reasoning
})

export interface Seed {
  readonly entities: ReadonlyArray<StoredEntity>
  readonly scorecards: ReadonlyArray<StoredScorecard>
  readonly history: ReadonlyArray<HistoryEntryRecord & { readonly entity_id: string }>
  readonly questions: ReadonlyArray<Question>
}

/** Kinds every type has; vaults also have a framework-tier record. */
const kindsOf = (type: EntityType): ReadonlyArray<Kind> => [
  "alpha",
  "beta",
  "gamma",
  "private",
  "retired",
  ...UnpublishedKinds,
  ...(type === "vault" ? (["framework"] as const) : [])
]

/** Kinds with a published scorecard: alpha (three versions) and every hidden kind, so hiding is what stops them. */
const ratedKinds: ReadonlyArray<Kind> = ["alpha", "private", "retired", ...UnpublishedKinds, "framework"]

export const makeSeed = (): Seed => {
  cardCounter = 0
  const entities: Array<StoredEntity> = []
  const scorecards: Array<StoredScorecard> = []
  const history: Array<HistoryEntryRecord & { entity_id: string }> = []
  for (const type of EntityTypes) {
    for (const kind of kindsOf(type)) {
      const stored: StoredEntity = { entity_type: type, record: makeRecord(type, kind) }
      entities.push(stored)
      if (!ratedKinds.includes(kind)) continue
      if (kind === "alpha") {
        const v1 = scorecardOf(stored, 1, "superseded")
        const v2 = scorecardOf(stored, 2, "published")
        scorecards.push(v1, v2, scorecardOf(stored, 3, "draft"))
        history.push(historyOf(v1, "First rating"), historyOf(v2, "Re-rated after the second audit"))
      } else {
        const card = scorecardOf(stored, 1, "published")
        scorecards.push(card)
        history.push(historyOf(card, "Rated"))
      }
    }
  }
  return { entities, scorecards, history, questions: EntityTypes.flatMap(questionsOf) }
}

export const Seed = makeSeed()

/** The seeded scorecards of one entity, newest version first. */
export const cardsOf = (type: EntityType, kind: Kind): ReadonlyArray<StoredScorecard> =>
  Seed.scorecards
    .filter((s) => s.entity_type === type && s.entity_id === entityId(type, kind))
    .sort((a, b) => b.scorecard_version - a.scorecard_version)

/** Records that must not leak, by why they are hidden. */
export const HiddenKinds = ["private", "retired", ...UnpublishedKinds, "framework"] as const
export type HiddenKind = (typeof HiddenKinds)[number]

export const hasKind = (type: EntityType, kind: Kind): boolean => kindsOf(type).includes(kind)

/** The callers of spec part 5, as the test header names them. */
export const Callers5 = {
  anonymous: Callers.anonymous("127.0.0.1"),
  free: Callers.apiKey("free", "acct-free", "key-free"),
  pro: Callers.apiKey("pro", "acct-pro", "key-pro"),
  enterprise: Callers.apiKey("enterprise", "acct-enterprise", "key-enterprise"),
  admin: Callers.admin("ops@example", "admin")
} as const satisfies { readonly [name: string]: Caller }

export type CallerName = keyof typeof Callers5
export const CallerNames = Object.keys(Callers5) as ReadonlyArray<CallerName>

/**
 * One row of the LayerQu quantum-readiness dataset as the source serves it
 * (api-facts), for the upstream and quantum-route tests; its band follows its
 * qri, and a row without qri has no band, label or stage.
 */
export const quantumRow = (
  slug: string,
  name: string,
  qri: number | null = 25,
  extra: { readonly [field: string]: unknown } = {}
) => ({
  slug,
  name,
  profile: "L1",
  qri,
  band: qri === null ? null : Math.min(7, Math.floor(qri / (100 / 7)) + 1),
  band_label: qri === null ? null : "Acknowledged",
  stage: qri === null ? null : 2,
  hybrid: "FAIL",
  danger: false,
  ci: 5,
  ...extra
})

/** An operator's branding (issue 17), every value set: the branding tests' server publishes under it. */
export const AcmeBranding = brandingOf({
  serviceName: "Acme Risk Desk",
  frameworkName: "Acme Digital Asset Risk Framework",
  siteUrl: "https://risk.acme.example/ratings",
  termsUrl: "https://legal.acme.example/terms?v=3#agents",
  attribution: "Ratings by Acme Risk Desk (https://risk.acme.example/ratings); see the terms for agents."
})
