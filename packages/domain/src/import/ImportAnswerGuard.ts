/**
 * A fast path for the bulk of an import: the answers, some 60 per scorecard,
 * six million in a 100,000-entity file set. Decoding each through the Answer
 * schema costs microseconds; `isPlainAnswer` checks the very same rules with
 * plain comparisons, and accepts only what the schema accepts unchanged, under
 * the import's decode options (exactly the nine keys, nothing excess). Any
 * answer it does not accept, right or wrong, sends its file down the schema's
 * own path, which then reports every issue with its path and reason. The
 * answers it accepts are kept as parsed: the schema would copy them key for key.
 */
import { Schema } from "effect"
import { type Answer, Confidences } from "../model/Answer.ts"
import { Uuid } from "../model/Primitives.ts"

/** The pattern the Uuid schema checks, taken from the schema itself so that the two cannot drift. */
const uuidPattern = (): RegExp => {
  const { pattern } = Schema.toJsonSchemaDocument(Uuid).schema as { readonly pattern?: unknown }
  if (typeof pattern !== "string") throw new Error("the Uuid schema no longer states its pattern")
  return new RegExp(pattern)
}
const UuidPattern = uuidPattern()
/**
 * The first alternative of that pattern alone (a versioned, variant-1 UUID),
 * which V8 matches several times faster; a miss falls back to the pattern.
 */
const CommonUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i
const isUuid = (s: string): boolean => CommonUuid.test(s) || UuidPattern.test(s)

const confidences: ReadonlySet<unknown> = new Set(Confidences)

const isStringOrNull = (u: unknown): boolean => u === null || typeof u === "string"
const isPositive = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u) && u > 0

/** True only for a value the Answer schema decodes, under the import's options, into an equal value. */
export const isPlainAnswer = (u: unknown): u is Answer => {
  if (typeof u !== "object" || u === null || Object.getPrototypeOf(u) !== Object.prototype) return false
  if (Object.keys(u).length !== 9) return false
  const a = u as Record<string, unknown>
  const { id, question_id, score, max_score, confidence } = a
  if (typeof id !== "string" || !isUuid(id)) return false
  if (typeof question_id !== "string" || question_id.length === 0) return false
  if (!isStringOrNull(a.domain) || !isStringOrNull(a.response) || !isStringOrNull(a.rationale)) return false
  if (!isPositive(max_score) || !isPositive(a.weight)) return false
  if (confidence !== null && !confidences.has(confidence)) return false
  if (score === null) return true
  return (
    typeof score === "number" &&
    Number.isFinite(score) &&
    score >= 0 &&
    score <= max_score &&
    confidence !== "not_applicable"
  )
}

/** A scorecard's answers when every one passes `isPlainAnswer`; anything else fails, to be decoded in full. */
export const PlainAnswers = Schema.declare(
  (u: unknown): u is ReadonlyArray<Answer> => Array.isArray(u) && u.every(isPlainAnswer)
)
