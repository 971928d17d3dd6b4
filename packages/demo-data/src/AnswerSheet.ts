/**
 * Computed answers of a demo scorecard. Each question's score follows from
 * the entity's quality in that domain plus a fixed per-question offset, so
 * successive versions differ only where the plan shifts a domain, as a real
 * re-rating would. Questions outside the entity's active domains, and those
 * the plan or the entity's nature rules out, are answered not_applicable;
 * a few have no public information and carry a null score.
 */
import type { Answer, Confidence } from "@ratings/domain/model/Answer"
import type { Question } from "@ratings/domain/model/Question"
import type { EvidenceItem } from "@ratings/domain/model/Responses"
import { BridgeCategoryDomains } from "@ratings/domain/scoring/BridgeRubric"
import type { DomainWeightMap } from "@ratings/domain/scoring/Composite"
import { type EntitySpec, keyOf } from "./DemoSpec.ts"
import { MaxScore } from "./rubric/Rubric.ts"
import { unitHash } from "./SeededRandom.ts"
import { uuidV5 } from "./StableIds.ts"

/** Share of questions without public information, picked per entity and question. */
const UnknownShare = 0.03

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x))

const isL2 = (spec: EntitySpec): boolean => spec.categories.includes("l2")

/** Why a question does not apply to this entity by its nature, if it does not. */
const ruledOutByNature = (spec: EntitySpec, q: Question, weights: DomainWeightMap): string | undefined => {
  if (weights[q.domain] === undefined) {
    if (q.domain === "peg_stability") return "Not a stablecoin: peg stability does not apply."
    if (q.domain === "staking") return "Not an LST or LRT vault: the staking domain does not apply."
    const category = Object.entries(BridgeCategoryDomains).find(([, d]) => d === q.domain)?.[0]
    if (category !== undefined) return `The bridge does not carry the ${category} category.`
    return `The ${q.domain} domain is not part of this entity's weights.`
  }
  switch (spec.type) {
    case "chain":
      if (!isL2(spec) && (q.id === "CHAIN-SEC-04" || q.id === "CHAIN-SEC-06"))
        return "An L1 has no settlement layer to verify proofs on or exit to."
      if (isL2(spec) && q.id === "CHAIN-SEC-07")
        return "Rollup sequencers post no slashable stake; safety rests on proofs instead."
      return undefined
    case "vault":
      if (spec.is_framework === true && q.domain === "curator")
        return "A framework has no curator: each instance built on it is rated with its own."
      if (q.id === "VAULT-STK-04" && !spec.categories.includes("lrt"))
        return "Stake is not restaked, so no AVS slashing applies."
      return undefined
    case "bridge":
      if (spec.signer_count === null && (q.id === "BRG-VAL-02" || q.id === "BRG-VAL-05"))
        return "No fixed signing set: messages are not approved by a threshold of signers."
      return undefined
    default:
      return undefined
  }
}

const SourceByDomain: { readonly [domain: string]: string } = {
  security: "audit reports, contract code and admin roles on-chain",
  technology: "the public repositories and release history",
  governance: "governance forum posts and executed proposals",
  economic: "on-chain positions and the risk parameters in force",
  operational: "status pages, incident reports and operator documentation",
  transparency: "the published documentation and reports",
  dependencies: "the integrations and oracle configuration on-chain",
  decentralization: "validator and operator data from public explorers",
  ecosystem: "on-chain activity and ecosystem dashboards",
  liquidity: "order books and on-chain pools",
  compliance: "the issuer's licences and legal disclosures",
  peg_stability: "reserve attestations and price history",
  data_quality: "feed configurations and price history",
  strategy: "the vault's allocation history on-chain",
  curator: "the curator's published framework and record",
  staking: "validator performance and withdrawal data",
  track_record: "the organisation's public record",
  validator_set: "the bridge's signer and validator documentation"
}

const sourceOf = (domain: string): string =>
  SourceByDomain[domain] ?? "public documentation and on-chain state"

const levelText = (q: Question, score: number): string => {
  const at = (s: number): string => q.criteria.find((c) => c.score === s)?.description ?? ""
  if (score === 1) return `Beyond level 0 (${at(0)}) but short of level 2 (${at(2)}).`
  if (score === 3) return `Beyond level 2 (${at(2)}) but short of level 4 (${at(4)}).`
  return `${at(score)}.`
}

const confidenceOf = (key: string): Confidence => {
  const h = unitHash(`${key}|confidence`)
  return h < 0.6 ? "high" : h < 0.9 ? "medium" : "low"
}

/** The entity's quality in a domain at a version (index into its planned versions). */
export const qualityAt = (spec: EntitySpec, domain: string, versionIndex: number): number => {
  const rating = spec.rating
  if (rating === undefined) return 0
  let q = rating.base + (rating.bias?.[domain] ?? 0)
  for (let i = 0; i <= versionIndex && i < rating.versions.length; i++) {
    const shift = rating.versions[i]!.shift
    q += (shift?.[domain] ?? 0) + (shift?.["*"] ?? 0)
  }
  return q
}

export interface SheetInput {
  readonly spec: EntitySpec
  readonly questions: ReadonlyArray<Question>
  readonly weights: DomainWeightMap
  readonly scorecardId: string
  readonly versionIndex: number
}

export const answerSheet = (input: SheetInput): ReadonlyArray<Answer> => {
  const { spec, questions, weights, scorecardId, versionIndex } = input
  const entityKey = keyOf(spec)
  const rating = spec.rating
  return questions.map((q) => {
    const key = `${entityKey}|${q.id}`
    // Fields in the Answer schema's order, so the files read like the API's answer entries.
    const answer = (
      score: number | null,
      confidence: Confidence | null,
      response: string | null,
      rationale: string
    ): Answer => ({
      id: uuidV5(`answer:${scorecardId}:${q.id}`),
      question_id: q.id,
      domain: q.domain,
      score,
      max_score: q.max_score,
      weight: q.weight,
      confidence,
      response,
      rationale
    })
    const ruledOut =
      ruledOutByNature(spec, q, weights) ?? rating?.notApplicable?.[q.id] ?? rating?.notApplicable?.[q.domain]
    if (ruledOut !== undefined) {
      return answer(null, "not_applicable", null, `Ruled out: ${ruledOut}`)
    }
    const fixed = rating?.fixed?.[q.id]
    const unknown =
      fixed === undefined &&
      (rating?.unknown?.includes(q.id) === true || unitHash(`${key}|unknown`) < UnknownShare)
    if (unknown) {
      return answer(
        null,
        null,
        null,
        "No public information found; excluded from the domain until it is disclosed."
      )
    }
    const noise = (unitHash(key) - 0.5) * 0.5
    const score =
      fixed ?? clamp(Math.round(MaxScore * (qualityAt(spec, q.domain, versionIndex) + noise)), 0, MaxScore)
    return answer(
      score,
      confidenceOf(key),
      levelText(q, score),
      `Demo data: level ${score} of ${MaxScore}, assessed from ${sourceOf(q.domain)}.`
    )
  })
}

const EvidenceKind: { readonly [domain: string]: string } = {
  security: "audit",
  governance: "governance",
  economic: "onchain",
  operational: "status",
  transparency: "docs"
}

/** Evidence for the first scored question of each domain: enough to show the trail without bulk. */
export const evidenceFor = (
  spec: EntitySpec,
  answers: ReadonlyArray<Answer>,
  collectedAt: string
): ReadonlyArray<{
  readonly question_id: string
  readonly evidence: ReadonlyArray<EvidenceItem>
  readonly reasoning: string | null
}> => {
  const seen = new Set<string>()
  const out: Array<{ question_id: string; evidence: ReadonlyArray<EvidenceItem>; reasoning: string | null }> =
    []
  const url = spec.urls?.docs ?? spec.urls?.website ?? null
  for (const a of answers) {
    if (a.score === null || a.domain === null || seen.has(a.domain)) continue
    seen.add(a.domain)
    out.push({
      question_id: a.question_id,
      evidence: [
        {
          kind: EvidenceKind[a.domain] ?? "docs",
          url,
          excerpt: `Reviewed ${sourceOf(a.domain)} for ${spec.name}.`,
          collected_at: collectedAt
        }
      ],
      reasoning: `Demo data: the evidence supports level ${a.score} of ${a.max_score}; see the rubric text.`
    })
  }
  return out
}
