/**
 * Small import files built as plain JSON, as an operator would write them, and
 * a snapshot of every in-memory store so tests can show that an import wrote
 * nothing, or nothing new.
 */
import { Effect } from "effect"
import { EntityTypes } from "../../src/model/EntityType.ts"
import { EntityRepository } from "../../src/ports/EntityRepository.ts"
import { IncidentRepository } from "../../src/ports/IncidentRepository.ts"
import { QuantumSnapshotStore } from "../../src/ports/QuantumSnapshotStore.ts"
import { RubricRepository } from "../../src/ports/RubricRepository.ts"
import { ScorecardRepository } from "../../src/ports/ScorecardRepository.ts"
import { BridgeQuestionCatalogue } from "../../src/scoring/BridgeRubric.ts"

export type Json = Record<string, unknown>

export const T0 = "2026-08-01T00:00:00Z"

/** A v4-shaped UUID from a number, so tests can name ids. */
export const id = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

export const file = (over: Json = {}): Json => ({ format: "ratings-import/v1", ...over })

export const record = (slug: string, n: number, over: Json = {}): Json => ({
  id: id(n),
  name: slug,
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
  ...over
})

export const entity = (
  entity_type: string,
  slug: string,
  n: number,
  over: Json = {},
  extra: Json = {}
): Json => {
  const own =
    entity_type === "bridge"
      ? {
          signer_count: 8,
          signing_threshold: 5,
          has_message_attestation: true,
          pause_mechanism: "a 3-of-5 guardian multisig can pause",
          validator_set_owner: null
        }
      : entity_type === "vault"
        ? { curator_id: null, curator: null, is_framework: false }
        : {}
  const base = entity_type === "token" ? tokenRecord(slug, n) : record(slug, n)
  return { entity_type, record: { ...base, ...own, ...over }, ...extra }
}

const tokenRecord = (slug: string, n: number): Json => ({
  id: id(n),
  name: slug,
  symbol: slug.toUpperCase(),
  slug,
  chain: { slug: "ethereum", name: "Ethereum" },
  status: "published",
  is_active: true,
  is_private: false,
  created_at: T0,
  updated_at: T0
})

export const question = (
  entity_type: string,
  qid: string,
  domain: string,
  position: number,
  over: Json = {}
) => ({
  id: qid,
  entity_type,
  domain,
  text: `${qid}?`,
  weight: 1,
  max_score: 4,
  criteria: [
    { score: 0, description: "no" },
    { score: 4, description: "yes" }
  ],
  position,
  ...over
})

/** A three-question protocol catalogue over two domains. */
export const protocolQuestions = [
  question("protocol", "PROT-SEC-01", "security", 1),
  question("protocol", "PROT-SEC-02", "security", 2),
  question("protocol", "PROT-GOV-01", "governance", 3)
]

/** The 62 bridge questions in canonical order. */
export const bridgeQuestions = BridgeQuestionCatalogue.map((q) =>
  question("bridge", q.id, q.domain, q.position, { text: q.text, weight: q.weight })
)

export const answer = (
  n: number,
  qid: string,
  domain: string | null,
  score: number | null,
  over: Json = {}
) => ({
  id: id(n),
  question_id: qid,
  domain,
  score,
  max_score: 4,
  weight: 1,
  confidence: score === null ? "not_applicable" : "high",
  response: null,
  rationale: null,
  ...over
})

/** Answers to the protocol catalogue; ids from `base` on. */
export const protocolAnswers = (base: number, scores: readonly [number, number, number] = [4, 2, 3]) => [
  answer(base, "PROT-SEC-01", "security", scores[0]),
  answer(base + 1, "PROT-SEC-02", "security", scores[1]),
  answer(base + 2, "PROT-GOV-01", "governance", scores[2])
]

export const scorecard = (
  n: number,
  slug: string,
  version: number,
  answers: ReadonlyArray<Json>,
  over: Json = {}
) => ({
  id: id(n),
  entity_type: "protocol",
  slug,
  scorecard_version: version,
  answers,
  ...over
})

export const publication = (slug: string, version: number, published_at: string, over: Json = {}) => ({
  entity_type: "protocol",
  slug,
  scorecard_version: version,
  published_at,
  reasoning: `version ${version} reviewed`,
  actor: "analyst@example.com",
  ...over
})

export const incident = (nonce: string, handle: string, over: Json = {}) => ({
  nonce,
  protocol_name: "Lend Protocol",
  chain: "ethereum",
  exploit_class: "REENTRANCY",
  loss_estimate_usd: 1_000_000,
  victim_addresses: ["0xabc"],
  source: { handle },
  claimed_tier: "corroborated",
  first_seen_at: "2026-07-30T12:00:00Z",
  ...over
})

export const quantumRow = (slug: string, name: string) => ({
  slug,
  name,
  profile: "L1",
  qri: 25,
  band: 2,
  band_label: "Acknowledged",
  stage: 2,
  hybrid: "FAIL",
  danger: false,
  ci: 5
})

/** Everything the in-memory stores hold, as plain data, for before/after comparisons. */
export const storeSnapshot = Effect.gen(function* () {
  const entities = yield* EntityRepository
  const rubric = yield* RubricRepository
  const scorecards = yield* ScorecardRepository
  const incidents = yield* IncidentRepository
  const quantum = yield* QuantumSnapshotStore
  const out: Record<string, unknown> = {}
  for (const type of EntityTypes) {
    const records = yield* entities.all(type)
    const cards: Array<unknown> = []
    for (const r of records) {
      for (const s of yield* scorecards.listForEntity(type, r.id))
        cards.push(yield* scorecards.findById(type, s.id))
      cards.push(yield* scorecards.history(type, r.id))
    }
    out[type] = { records, questions: yield* rubric.questions(type), cards }
  }
  out.incidents = yield* incidents.feed({ min_status: "rumored", limit: 200, offset: 0 })
  out.quantum = yield* quantum.latest
  return JSON.parse(JSON.stringify(out)) as unknown
})
