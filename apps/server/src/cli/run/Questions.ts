/**
 * What `ratings questions list` does (the command: QuestionsCommand.ts): read
 * a type's catalogue and print it, one question a line (position, id, domain,
 * weight, maximum score, text), or as the JSON an import's questions take.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Question } from "@ratings/domain/model/Question"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { Console, Effect } from "effect"
import { AppLayer } from "../../AppLayer.ts"

export interface ListInput {
  readonly entityType: EntityType
  readonly json: boolean
}

/** The catalogue as a table: a header, then one line per question in canonical order. */
export const formatCatalogue = (type: EntityType, questions: ReadonlyArray<Question>): string => {
  if (questions.length === 0)
    return `no ${type} questions are stored; an import's questions section creates the catalogue`
  const width = (f: (q: Question) => string) => Math.max(...questions.map((q) => f(q).length))
  const idWidth = width((q) => q.id)
  const domainWidth = width((q) => q.domain)
  const posWidth = width((q) => String(q.position))
  const lines = questions.map(
    (q) =>
      `${String(q.position).padStart(posWidth)}  ${q.id.padEnd(idWidth)}  ${q.domain.padEnd(domainWidth)}  ` +
      `weight ${q.weight}, max ${q.max_score}${q.gate === undefined || q.gate === null ? "" : `, gate ${q.gate}`}  ${q.text}`
  )
  return [`${type} catalogue: ${questions.length} question(s), in canonical order`, ...lines].join("\n")
}

export const list = Effect.fnUntraced(function* (input: ListInput) {
  const questions = yield* (yield* RubricRepository).questions(input.entityType)
  yield* Console.log(
    input.json ? JSON.stringify(questions, null, 2) : formatCatalogue(input.entityType, questions)
  )
}, Effect.provide(AppLayer))
