/**
 * The ids an import file left out, derived as each item is decoded
 * (ImportIds.ts), and which items had them derived. Once the store is read,
 * ImportIdMatch.ts gives a derived id way to a stored one. Given ids are
 * never changed.
 */
import type { Answer } from "../model/Answer.ts"
import type {
  ImportEntity,
  ImportEntityInput,
  ImportHistory,
  ImportHistoryInput,
  ImportScorecard,
  ImportScorecardInput
} from "./ImportFile.ts"
import { answerIdOf, entityIdOf, scorecardIdOf } from "./ImportIds.ts"

/** Which items of an import had their id derived: `type:slug` of entities (as `slugKey`), `type:slug:version` of scorecards. */
export interface DerivedIds {
  readonly entities: ReadonlySet<string>
  readonly scorecards: ReadonlySet<string>
}

export const scorecardKey = (type: string, slug: string, version: number): string =>
  `${type}:${slug}:${version}`

export const withEntityId = (e: ImportEntityInput, derived: Set<string>): ImportEntity => {
  if (e.record.id !== undefined) return e as ImportEntity
  derived.add(`${e.entity_type}:${e.record.slug}`)
  return { ...e, record: { ...e.record, id: entityIdOf(e.entity_type, e.record.slug) } } as ImportEntity
}

export const withScorecardIds = (s: ImportScorecardInput, derived: Set<string>): ImportScorecard => {
  // The common case of a generated file: every id given, nothing to copy.
  if (s.id !== undefined && s.answers.every((a) => a.id !== undefined)) return s as ImportScorecard
  let id = s.id
  if (id === undefined) {
    derived.add(scorecardKey(s.entity_type, s.slug, s.scorecard_version))
    id = scorecardIdOf(s.entity_type, s.slug, s.scorecard_version)
  }
  const card = id
  const answers = s.answers.map(
    (a): Answer => (a.id === undefined ? { ...a, id: answerIdOf(card, a.question_id) } : (a as Answer))
  )
  return { ...s, id: card, answers }
}

export const withHistoryIds = (h: ImportHistoryInput): ImportHistory => {
  if (h.entries.every((e) => e.scorecard_id !== undefined)) return h as ImportHistory
  const entries = h.entries.map((e) => ({
    ...e,
    scorecard_id: e.scorecard_id ?? scorecardIdOf(h.entity_type, h.slug, e.scorecard_version)
  }))
  return { ...h, entries }
}

/** A decoded item of a section with the ids it left out derived; `derived` records which. */
export const withIds = (
  section: string,
  value: unknown,
  derived: { readonly entities: Set<string>; readonly scorecards: Set<string> }
): unknown =>
  section === "entities"
    ? withEntityId(value as ImportEntityInput, derived.entities)
    : section === "scorecards"
      ? withScorecardIds(value as ImportScorecardInput, derived.scorecards)
      : section === "history"
        ? withHistoryIds(value as ImportHistoryInput)
        : value
