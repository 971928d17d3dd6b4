/**
 * Hand-built records for the ratings-side contract tests. Timestamps are in the
 * form the database gives back (the service's wire form, `isoTimestamp`: UTC,
 * `+00:00`, a six-digit fraction when there is one), so one expected value holds
 * for every implementation; the Postgres tests check the other forms on their own.
 * The domain's use-case tests take `entity` and `T0` from here too
 * (services/fixtures.ts).
 */
import { answerTable, withLazyAnswers } from "../../../src/import/ImportAnswerTable.ts"
import type { EntityRecord } from "../../../src/model/Entity.ts"
import type { EntityType } from "../../../src/model/EntityType.ts"
import type { StoredEntity } from "../../../src/ports/EntityRepository.ts"
import type { HistoryEntryRecord, StoredScorecard } from "../../../src/ports/ScorecardRepository.ts"

/** A fixed UUID per number: deterministic ids make failures readable. */
export const uuid = (n: number, group = 0) =>
  `00000000-0000-4000-${(0x8000 + group).toString(16)}-${n.toString(16).padStart(12, "0")}`

export const T0 = "2026-08-01T00:00:00+00:00"
export const T1 = "2026-08-02T12:30:00+00:00"
export const T2 = "2026-08-03T08:15:45.250000+00:00"

let counter = 0
const next = () => ++counter

const titleOf = (slug: string) =>
  slug
    .split("-")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(" ")

/** The fields a type adds to the shared ones, with every key present. */
const ownFields = (type: EntityType, slug: string): Record<string, unknown> => {
  switch (type) {
    case "bridge":
      return {
        signer_count: null,
        signing_threshold: null,
        has_message_attestation: true,
        pause_mechanism: null,
        validator_set_owner: null
      }
    case "vault":
      return { curator_id: null, curator: null, is_framework: false }
    case "token":
      return {
        symbol: slug.slice(0, 4).toUpperCase(),
        contract_address: null,
        chain: { slug: "ethereum", name: "Ethereum" }
      }
    case "chain":
      return { chain_id: null }
    default:
      return {}
  }
}

export const entity = (
  entity_type: EntityType,
  slug: string,
  over: Record<string, unknown> = {},
  domain_weights?: { readonly [domain: string]: number }
): StoredEntity => ({
  entity_type,
  record: {
    id: uuid(next(), 1),
    name: titleOf(slug),
    slug,
    status: "published",
    categories: [],
    chains: [{ slug: "ethereum", name: "Ethereum" }],
    urls: {},
    external_ids: {},
    description: null,
    is_active: true,
    is_private: false,
    created_at: T0,
    updated_at: T0,
    ...ownFields(entity_type, slug),
    ...over
  } as unknown as EntityRecord,
  ...(domain_weights === undefined ? {} : { domain_weights })
})

export const answer = (question_id: string, domain: string, score: number | null, over = {}) => ({
  id: uuid(next(), 2),
  question_id,
  domain,
  score,
  max_score: 4,
  weight: 1,
  confidence: score === null ? ("not_applicable" as const) : ("high" as const),
  response: "yes",
  rationale: "audited twice",
  ...over
})

/** The figures of a draft nobody has scored yet: a draft's own, before publishing scores it. */
export const unscored = {
  grade: null,
  letter_grade: null,
  composite_score: null,
  intrinsic_composite_score: null,
  intrinsic_letter_grade: null,
  domain_scores: null,
  mvc_gates: null
} satisfies Partial<StoredScorecard>

export const scorecard = (
  e: StoredEntity,
  version: number,
  status: "draft" | "published" | "superseded",
  over: Partial<StoredScorecard> = {}
): StoredScorecard => ({
  id: uuid(next(), 3),
  entity_id: e.record.id,
  entity_type: e.entity_type,
  status,
  scorecard_version: version,
  grade: "A",
  letter_grade: "A",
  composite_score: 80,
  intrinsic_composite_score: 82.5,
  intrinsic_letter_grade: "A",
  largest_drag_hint: "chain: ethereum",
  has_unrated_dependencies: false,
  domain_scores: { security: 0.8, governance: 0.1 + 0.2 },
  mvc_gates: e.entity_type === "chain" ? { finality: true, liveness: false } : null,
  last_rated_at: status === "draft" ? null : T0,
  scorecard_published_at: status === "draft" ? null : T0,
  domain_weights: { security: 60, governance: 40 },
  answers: [
    answer("Q-1", "security", 3.5),
    answer("Q-2", "governance", null),
    answer("Q-3", "governance", 0, { domain: null, confidence: null, response: null, rationale: null })
  ],
  dependencies: [{ entity_type: "chain", slug: "ethereum", exposure: 0.75 }],
  evidence: [
    {
      question_id: "Q-1",
      evidence: [
        { kind: "audit", url: "https://example.com/a.pdf", excerpt: "no findings", collected_at: T0 }
      ],
      reasoning: "two audits, no open findings"
    },
    { question_id: "Q-2", evidence: [], reasoning: null }
  ],
  ...over
})

export const historyOf = (
  s: StoredScorecard,
  reasoning: string,
  changed_by?: string
): HistoryEntryRecord => ({
  scorecard_id: s.id,
  scorecard_version: s.scorecard_version,
  grade: s.grade,
  letter_grade: s.letter_grade,
  composite_score: s.composite_score,
  intrinsic_composite_score: s.intrinsic_composite_score,
  intrinsic_letter_grade: s.intrinsic_letter_grade,
  published_at: s.scorecard_published_at ?? T0,
  reasoning,
  ...(changed_by === undefined ? {} : { changed_by })
})

export const slugsOf = (records: ReadonlyArray<{ readonly slug: string }>) => records.map((r) => r.slug)

/**
 * `s` with its answers held in an import's answer table, as an import saves
 * drafts; each read of them from the table adds one to `reads.n`.
 */
export const tableBacked = (s: StoredScorecard, reads: { n: number } = { n: 0 }): StoredScorecard => {
  const { answers, ...rest } = s
  const table = answerTable()
  const slice = table.add(answers)
  const counted = {
    ...table,
    read: (x: typeof slice) => {
      reads.n++
      return table.read(x)
    }
  }
  return withLazyAnswers(rest, { ...slice, table: counted })
}
