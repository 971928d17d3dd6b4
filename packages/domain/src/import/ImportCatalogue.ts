/**
 * The question catalogues of an import. Merged (the default of `ratings
 * import`), the questions of a type are added to its stored catalogue or
 * update the stored question of the same id, and stored questions the import
 * does not list stay; replaced (`--replace questions`, and the Importer's own
 * default), the import's questions of a type are its whole catalogue. Either
 * way the result must be a catalogue: unique ids and positions, and for
 * bridges the 62-question catalogue in canonical order. Scorecards are checked
 * against the catalogue `catalogueOf` gives: the result for a type the import
 * carries, else the stored one.
 */
import { Result } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { Question } from "../model/Question.ts"
import { BridgeQuestionCatalogue, checkBridgeQuestionList } from "../scoring/BridgeRubric.ts"
import type { ImportContent, Located } from "./ImportDecode.ts"
import type { ImportIssue } from "./ImportIssue.ts"
import { type Change, countChanges, type PlannedCatalogue } from "./ImportPlan.ts"
import type { Report } from "./ImportReplay.ts"
import { sameContent, type StoreView } from "./ImportStoreView.ts"
import { isBroken, where } from "./ImportPlaces.ts"

export interface Catalogue {
  readonly questions: ReadonlyMap<string, Question>
  readonly position: ReadonlyMap<string, number>
  readonly origin: "this import" | "the database" | "this import merged with the database"
  /** A question of this type failed decoding: lookups against it prove nothing. */
  readonly incomplete: boolean
}

/** `gate: null` and no gate say the same (a store may keep either): neither is a change. */
const gateless = (q: Question): Question => {
  if (q.gate !== null) return q
  const { gate: _, ...rest } = q
  return rest
}

/** The import's questions grouped by entity type, in file order within each type. */
const groupByType = (
  questions: ReadonlyArray<Located<Question>>
): Map<EntityType, Array<Located<Question>>> => {
  const byType = new Map<EntityType, Array<Located<Question>>>()
  for (const item of questions) {
    const list = byType.get(item.value.entity_type)
    if (list === undefined) byType.set(item.value.entity_type, [item])
    else list.push(item)
  }
  return byType
}

/**
 * Reports a question id or a position that two questions of one type share;
 * the ids of the type's questions (each with its first holder).
 */
const checkUnique = (
  type: EntityType,
  items: ReadonlyArray<Located<Question>>,
  at: Report
): Map<string, Located<unknown>> => {
  const ids = new Map<string, Located<unknown>>()
  const positions = new Map<number, Located<Question>>()
  for (const item of items) {
    const q = item.value
    const twice = ids.get(q.id)
    if (twice !== undefined)
      at(item, ".id", `duplicate question id ${q.id} in the ${type} catalogue: ${where(twice)} has it too`)
    else ids.set(q.id, item)
    const holder = positions.get(q.position)
    if (holder !== undefined)
      at(
        item,
        ".position",
        `position ${q.position} is also held by ${holder.value.id} (${where(holder)}); positions give the canonical order`
      )
    else positions.set(q.position, item)
  }
  return ids
}

/**
 * The bridge questions, in position order, must be the 62-question catalogue
 * in canonical order, each in its catalogue domain. A list that is not the
 * catalogue is reported once, against `source` (the file of the first bridge
 * question).
 */
const checkBridgeCatalogue = (
  source: string,
  ordered: ReadonlyArray<Located<Question>>,
  report: (issue: ImportIssue) => void,
  at: Report
): void => {
  const checked = checkBridgeQuestionList(ordered.map((i) => i.value.id))
  if (Result.isFailure(checked)) {
    report({
      source,
      path: "$.questions",
      message: `the bridge questions are not the 62-question catalogue in canonical order: ${checked.failure}`
    })
  } else {
    ordered.forEach((item, i) => {
      const expected = BridgeQuestionCatalogue[i]!.domain
      if (item.value.domain !== expected)
        at(item, ".domain", `bridge question ${item.value.id} belongs to domain ${expected} in the catalogue`)
    })
  }
}

/** How an import's questions of a type meet the stored ones (see the module comment). */
export type CatalogueMode = "replace" | "merge"

/** The stored questions of a type that a merge keeps: those the import does not list. */
const keptOf = (type: EntityType, ids: ReadonlyMap<string, unknown>, view: StoreView, mode: CatalogueMode) =>
  mode === "replace" ? [] : view.catalogues[type].filter((q) => !ids.has(q.id))

/** The catalogue of one type as the import leaves it, counted against the stored one. */
const planCatalogue = (
  type: EntityType,
  ordered: ReadonlyArray<Located<Question>>,
  ids: ReadonlyMap<string, unknown>,
  view: StoreView,
  mode: CatalogueMode
): PlannedCatalogue => {
  const stored = new Map(view.catalogues[type].map((q) => [q.id, q]))
  const changes = ordered.map((i): Change => {
    const s = stored.get(i.value.id)
    return s === undefined ? "created" : sameContent(gateless(s), gateless(i.value)) ? "unchanged" : "updated"
  })
  const kept = keptOf(type, ids, view, mode)
  const removedIds = mode === "merge" ? [] : [...stored.keys()].filter((id) => !ids.has(id))
  const removed = removedIds.length
  const counts = { ...countChanges(changes), removed }
  return {
    entity_type: type,
    questions: [...kept, ...ordered.map((i) => i.value)].sort((a, b) => a.position - b.position),
    counts,
    replace: counts.created + counts.updated + removed > 0,
    removedIds
  }
}

/** In a merge, a position the import gives that a kept stored question holds. */
const checkKeptPositions = (
  type: EntityType,
  items: ReadonlyArray<Located<Question>>,
  kept: ReadonlyArray<Question>,
  at: Report
): void => {
  const held = new Map(kept.map((q) => [q.position, q.id]))
  for (const item of items) {
    const holder = held.get(item.value.position)
    if (holder !== undefined)
      at(
        item,
        ".position",
        `position ${item.value.position} is held by the stored ${type} question ${holder}, which this import does not list; list it too, choose a free position, or replace the catalogue with --replace questions`
      )
  }
}

/**
 * Checks the import's questions type by type and plans each catalogue it
 * replaces; `catalogueOf` gives the catalogue scorecards of a type are checked
 * against (the import's for a type it carries, else the stored one).
 */
export const checkQuestions = (
  content: ImportContent,
  view: StoreView,
  report: (issue: ImportIssue) => void,
  at: Report,
  mode: CatalogueMode = "replace"
): { planned: Array<PlannedCatalogue>; catalogueOf: (type: EntityType) => Catalogue } => {
  const byType = groupByType(content.questions)
  const broken = content.broken.questionTypes
  const planned: Array<PlannedCatalogue> = []
  for (const [type, items] of byType) {
    const ids = checkUnique(type, items, at)
    const kept = keptOf(type, ids, view, mode)
    checkKeptPositions(type, items, kept, at)
    const ordered = [...items].sort((a, b) => a.value.position - b.value.position)
    if (type === "bridge" && !isBroken(broken, "bridge"))
      checkBridgeCatalogue(
        items[0]!.source,
        [...kept.map((q) => ({ source: items[0]!.source, path: "$.questions", value: q })), ...ordered].sort(
          (a, b) => a.value.position - b.value.position
        ),
        report,
        at
      )
    planned.push(planCatalogue(type, ordered, ids, view, mode))
  }
  const catalogues = new Map<EntityType, Catalogue>()
  const catalogueOf = (type: EntityType): Catalogue => {
    const known = catalogues.get(type)
    if (known !== undefined) return known
    const fromImport = byType.get(type)
    const questions =
      fromImport === undefined
        ? view.catalogues[type]
        : (planned.find((c) => c.entity_type === type)?.questions ?? fromImport.map((i) => i.value))
    const made: Catalogue = {
      questions: new Map(questions.map((q) => [q.id, q])),
      position: new Map(questions.map((q) => [q.id, q.position])),
      origin:
        fromImport === undefined
          ? "the database"
          : mode === "merge" && view.catalogues[type].length > 0
            ? "this import merged with the database"
            : "this import",
      incomplete: isBroken(broken, type)
    }
    catalogues.set(type, made)
    return made
  }
  return { planned, catalogueOf }
}
