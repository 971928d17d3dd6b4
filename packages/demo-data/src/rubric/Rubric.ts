/**
 * The rubric the demo and the scale generator ship: every question of the
 * seven entity types as import-format `Question`s, in canonical order. The
 * bridge questions are the core's 62-question catalogue, unchanged and in its
 * order, with the demo's criteria text added.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import type { Question, RubricLevel } from "@ratings/domain/model/Question"
import { BridgeQuestionCatalogue } from "@ratings/domain/scoring/BridgeRubric"
import { BridgeCriteria } from "./BridgeCriteria.ts"
import { ChainRubric } from "./ChainQuestions.ts"
import { OracleRubric } from "./OracleQuestions.ts"
import { OrganisationRubric } from "./OrganisationQuestions.ts"
import { ProtocolRubric } from "./ProtocolQuestions.ts"
import type { TypeRubric } from "./RubricRows.ts"
import { TokenRubric } from "./TokenQuestions.ts"
import { VaultRubric } from "./VaultQuestions.ts"

/** Every demo question is scored 0 to 4, with rubric anchors at 0, 2 and 4. */
export const MaxScore = 4

export const TypeRubrics: ReadonlyArray<TypeRubric> = [
  ProtocolRubric,
  ChainRubric,
  TokenRubric,
  OracleRubric,
  VaultRubric,
  OrganisationRubric
]

const levels = (none: string, partial: string, full: string): ReadonlyArray<RubricLevel> => [
  { score: 0, description: none },
  { score: 2, description: partial },
  { score: 4, description: full }
]

const fromRows = (rubric: TypeRubric): ReadonlyArray<Question> => {
  const out: Array<Question> = []
  for (const { domain, code, rows } of rubric.domains) {
    rows.forEach(([weight, text, none, partial, full, gate], i) => {
      const question: Question = {
        id: `${rubric.prefix}-${code}-${String(i + 1).padStart(2, "0")}`,
        entity_type: rubric.entity_type,
        domain,
        text,
        weight,
        max_score: MaxScore,
        criteria: levels(none, partial, full),
        position: out.length + 1
      }
      out.push(rubric.entity_type === "chain" ? { ...question, gate: gate ?? null } : question)
    })
  }
  return out
}

const bridgeQuestions = (): ReadonlyArray<Question> =>
  BridgeQuestionCatalogue.map((q) => {
    const criteria = BridgeCriteria[q.id]
    if (criteria === undefined) throw new Error(`no demo criteria for bridge question ${q.id}`)
    return {
      id: q.id,
      entity_type: "bridge",
      domain: q.domain,
      text: q.text,
      weight: q.weight,
      max_score: MaxScore,
      criteria: levels(...criteria),
      position: q.position
    }
  })

const build = (): { readonly [T in EntityType]: ReadonlyArray<Question> } => {
  const byType = Object.fromEntries(TypeRubrics.map((r) => [r.entity_type, fromRows(r)])) as Record<
    EntityType,
    ReadonlyArray<Question>
  >
  byType.bridge = bridgeQuestions()
  return byType
}

/** The questions of each entity type, in canonical order. */
export const QuestionsByType: { readonly [T in EntityType]: ReadonlyArray<Question> } = build()

/** The whole rubric, type by type in the order of `EntityTypes`. */
export const RubricQuestions: ReadonlyArray<Question> = EntityTypes.flatMap((t) => QuestionsByType[t])
