/**
 * The import's draft scorecards, checked against the import and the store:
 * each scorecard's identity and version, its answers against its type's
 * catalogue (`ImportCatalogue`), its dependencies, and whether the scoring
 * core can score it. Every failure is reported; `validateImport` runs it.
 */
import { Result } from "effect"
import type { Answer } from "../model/Answer.ts"
import type { EntityType } from "../model/EntityType.ts"
import type { Scorecard } from "../model/Scorecard.ts"
import type { StoredScorecard } from "../ports/ScorecardRepository.ts"
import { defaultDomainWeights, scoreEntity } from "../scoring/ScoreEntity.ts"
import type { ScoringError } from "../scoring/ScoringError.ts"
import { type AnswerIdSet, answerIdSet } from "./ImportAnswerIds.ts"
import {
  type AnswerIdIndex,
  type AnswerTable,
  answerSliceOf,
  reordered,
  withLazyAnswers
} from "./ImportAnswerTable.ts"
import type { Catalogue } from "./ImportCatalogue.ts"
import type { ImportContent, Located } from "./ImportDecode.ts"
import type { ImportScorecard } from "./ImportFile.ts"
import type { Change } from "./ImportPlan.ts"
import { type KeptDraft, keptDraft } from "./ImportPlanRecords.ts"
import type { RecordStore } from "./ImportRecordStore.ts"
import type { ImportedDrafts, Report } from "./ImportReplay.ts"
import { type ReadonlyVersionMap, versionMap } from "./ImportVersionMap.ts"
import {
  type EntityIndex,
  idKey,
  type ResolvedEntity,
  sameDraft,
  slugKey,
  type StoreView
} from "./ImportStoreView.ts"
import { isBroken, sub, where } from "./ImportPlaces.ts"

const scoringPath = (error: ScoringError, sc: ImportScorecard): string => {
  switch (error._tag) {
    case "InvalidAnswer":
      return sub("answers", error.index)
    case "UnweightedDomain":
    case "DomainWeightsSumError":
    case "InvalidDomainWeight":
      return sc.domain_weights === undefined ? ".answers" : ".domain_weights"
    case "NothingScored":
      return ".answers"
    default:
      return ""
  }
}

type CheckedDraft = KeptDraft

/**
 * The answer ids of the scorecards checked so far, to report an id two
 * answers share. Millions of answer ids at scale: a compact set of them
 * (ImportAnswerIds.ts), and only once one repeats (an error) a map of each
 * id's first scorecard, built from the scorecards seen so far, to say where
 * it was.
 */
interface AnswerIds {
  /** Ids of answers that are not in the table of `index`. */
  readonly ids: AnswerIdSet
  /** The decoded answers' table and the index of its answers by id (4 bytes per answer). */
  index: { readonly table: AnswerTable; readonly ids: AnswerIdIndex } | undefined
  holders: Map<string, Located<unknown>> | undefined
  /** The scorecards whose answers were registered, in order; the last is the one being checked. */
  readonly registered: Array<Located<ImportScorecard>>
}

/** Each answer id's first scorecard, up to answer `answerIndex` of the scorecard being checked. */
const holdersBefore = (answers: AnswerIds, answerIndex: number): Map<string, Located<unknown>> => {
  const holders = new Map<string, Located<unknown>>()
  const registered = answers.registered
  registered.forEach((held, k) => {
    const list = k === registered.length - 1 ? held.value.answers.slice(0, answerIndex) : held.value.answers
    for (const a of list) if (!holders.has(a.id)) holders.set(a.id, held)
  })
  return holders
}

/**
 * Reports a scorecard id used twice in the import, a version the import
 * holds twice, a stored scorecard given another version, and a version stored
 * under another scorecard id; the import draft already at that version, and
 * the stored scorecard with this id.
 */
const checkScorecardIdentity = (
  item: Located<ImportScorecard>,
  sc: ImportScorecard,
  entity: ResolvedEntity,
  view: StoreView,
  ids: Map<string, Located<unknown>>,
  drafts: ReadonlyVersionMap<CheckedDraft>,
  at: Report
): { sameVersion: CheckedDraft | undefined; same: Scorecard | undefined } => {
  const type = sc.entity_type
  const twice = ids.get(idKey(sc.id))
  if (twice !== undefined) at(item, ".id", `duplicate scorecard id ${sc.id}: ${where(twice)} has it too`)
  else ids.set(idKey(sc.id), item)
  const sameVersion = drafts.get(entity.id, sc.scorecard_version)
  if (sameVersion !== undefined)
    at(
      item,
      ".scorecard_version",
      `version ${sc.scorecard_version} of ${type} ${sc.slug} is also at ${where(sameVersion.item)}`
    )
  const list = view.scorecards.get(entity.id) ?? []
  const same = list.find((s) => idKey(s.id) === idKey(sc.id))
  if (same !== undefined && same.scorecard_version !== sc.scorecard_version)
    at(
      item,
      ".scorecard_version",
      `scorecard ${sc.id} is stored as version ${same.scorecard_version}; a stored scorecard keeps its version`
    )
  const other = list.find((s) => s.scorecard_version === sc.scorecard_version && idKey(s.id) !== idKey(sc.id))
  if (other !== undefined)
    at(
      item,
      ".scorecard_version",
      `version ${sc.scorecard_version} of ${type} ${sc.slug} is already stored as scorecard ${other.id}`
    )
  return { sameVersion, same }
}

/** Adds answer `j` of a scorecard to the answer ids; false when an answer added before has its id. */
const addAnswerId = (answers: AnswerIds, sc: ImportScorecard, j: number, id: string): boolean => {
  const slice = answerSliceOf(sc)
  if (slice !== undefined) {
    answers.index ??= { table: slice.table, ids: slice.table.idIndex() }
    if (answers.index.table === slice.table) {
      const fresh = answers.index.ids.add(slice.start + (slice.order === undefined ? j : slice.order[j]!))
      return fresh && (answers.ids.size === 0 || !answers.ids.has(id))
    }
  }
  return answers.ids.add(id) && (answers.index === undefined || !answers.index.ids.has(id))
}

/** Reports an answer id another answer of the import (this scorecard's before it, or an earlier one's) has. */
const checkAnswerId = (
  item: Located<ImportScorecard>,
  sc: ImportScorecard,
  answer: { readonly id: string },
  j: number,
  answers: AnswerIds,
  at: Report
): void => {
  if (answers.holders === undefined) {
    if (addAnswerId(answers, sc, j, answer.id)) return
    answers.holders = holdersBefore(answers, j)
  }
  const sameAnswer = answers.holders.get(answer.id)
  if (sameAnswer !== undefined)
    at(
      item,
      sub("answers", j, "id"),
      `duplicate answer id ${answer.id}: the scorecard at ${where(sameAnswer)} has it too`
    )
  else answers.holders.set(answer.id, item)
}

/**
 * Checks a scorecard's answers and evidence against its type's catalogue:
 * known question ids in their domain, each question answered once, answer
 * ids unique across the import. No catalogue at all is one issue.
 */
const checkAnswers = (
  item: Located<ImportScorecard>,
  sc: ImportScorecard,
  list: ReadonlyArray<Answer>,
  catalogue: Catalogue,
  answers: AnswerIds,
  at: Report
): void => {
  const type = sc.entity_type
  if (catalogue.questions.size === 0) {
    if (!catalogue.incomplete && list.length > 0)
      at(
        item,
        ".answers",
        `no question catalogue for ${type}: include the ${type} questions in this import or import them first`
      )
    return
  }
  const answered = new Set<string>()
  answers.registered.push(item)
  list.forEach((a, j) => {
    const q = catalogue.questions.get(a.question_id)
    if (q === undefined) {
      if (!catalogue.incomplete)
        at(
          item,
          sub("answers", j, "question_id"),
          `unknown question id ${a.question_id}: not in the ${type} catalogue of ${catalogue.origin}`
        )
    } else if (a.domain !== null && a.domain !== q.domain) {
      at(
        item,
        sub("answers", j, "domain"),
        `question ${a.question_id} belongs to domain ${q.domain}, not ${a.domain}`
      )
    }
    if (answered.has(a.question_id))
      at(
        item,
        sub("answers", j, "question_id"),
        `question ${a.question_id} is answered twice in this scorecard`
      )
    answered.add(a.question_id)
    checkAnswerId(item, sc, a, j, answers, at)
  })
  sc.evidence?.forEach((e, k) => {
    if (!catalogue.incomplete && !catalogue.questions.has(e.question_id))
      at(
        item,
        sub("evidence", k, "question_id"),
        `unknown question id ${e.question_id}: not in the ${type} catalogue of ${catalogue.origin}`
      )
  })
}

/** Reports a dependency that names no entity of the import or the store. */
const checkDependencies = (
  item: Located<ImportScorecard>,
  sc: ImportScorecard,
  content: ImportContent,
  index: EntityIndex,
  at: Report
): void => {
  sc.dependencies?.forEach((d, k) => {
    if (
      index.resolve(d.entity_type, d.slug) === undefined &&
      !isBroken(content.broken.entities, slugKey(d.entity_type, d.slug))
    )
      at(
        item,
        sub("dependencies", k),
        `dependency ${d.entity_type} ${d.slug} names no entity in this import or in the database`
      )
  })
}

/** The draft as the store will hold it: answers in catalogue order, no computed figures yet. */
const draftOf = (
  sc: ImportScorecard,
  list: ReadonlyArray<Answer>,
  entity: ResolvedEntity,
  catalogue: Catalogue,
  domain_weights: StoredScorecard["domain_weights"]
): StoredScorecard => {
  const order = (id: string) => catalogue.position.get(id) ?? Number.MAX_SAFE_INTEGER
  const fields: Omit<StoredScorecard, "answers"> = {
    id: sc.id,
    entity_id: entity.id,
    entity_type: sc.entity_type,
    status: "draft",
    scorecard_version: sc.scorecard_version,
    grade: null,
    letter_grade: null,
    composite_score: sc.composite_score ?? null,
    intrinsic_composite_score: null,
    intrinsic_letter_grade: null,
    largest_drag_hint: null,
    has_unrated_dependencies: false,
    domain_scores: null,
    mvc_gates: null,
    last_rated_at: null,
    scorecard_published_at: null,
    domain_weights,
    dependencies: sc.dependencies ?? [],
    evidence: sc.evidence ?? []
  }
  const positions = list.map((a) => order(a.question_id))
  const sorted = Int32Array.from([...positions.keys()].sort((a, b) => positions[a]! - positions[b]!))
  const slice = answerSliceOf(sc)
  // Answers of a decoded scorecard stay in its compact table, read in catalogue order.
  if (slice !== undefined)
    return withLazyAnswers(fields, sorted.every((j, k) => j === k) ? slice : reordered(slice, sorted))
  return { ...fields, answers: Array.from(sorted, (j) => list[j]!) }
}

/**
 * Checks every draft scorecard of the import (identity, answers against the
 * catalogue, dependencies, whether the scoring core scores it); the drafts,
 * the first of a version kept, each with its change.
 */
export const checkScorecards = (
  content: ImportContent,
  view: StoreView,
  index: EntityIndex,
  catalogueOf: (type: EntityType) => Catalogue,
  at: Report,
  store: RecordStore
): ImportedDrafts<CheckedDraft> => {
  const checked: Array<CheckedDraft> = []
  const drafts = versionMap<CheckedDraft>((d) => d.scorecard_version)
  const ids = new Map<string, Located<unknown>>()
  const answers: AnswerIds = { ids: answerIdSet(), index: undefined, holders: undefined, registered: [] }
  for (const item of content.scorecards) {
    const sc = item.value
    const type = sc.entity_type
    const entity = index.resolve(type, sc.slug)
    if (entity === undefined) {
      if (!isBroken(content.broken.entities, slugKey(type, sc.slug)))
        at(item, ".slug", `no ${type} with slug ${sc.slug} in this import or in the database`)
      continue
    }
    // Each value read once: a decoded scorecard and its answers are made afresh on every read.
    const { sameVersion, same } = checkScorecardIdentity(item, sc, entity, view, ids, drafts, at)
    const catalogue = catalogueOf(type)
    const list = sc.answers
    checkAnswers(item, sc, list, catalogue, answers, at)
    checkDependencies(item, sc, content, index, at)

    const domain_weights =
      sc.domain_weights ?? entity.domain_weights ?? defaultDomainWeights(type, entity.categories)
    const scored = scoreEntity({
      entity_type: type,
      categories: entity.categories,
      answers: list,
      domain_weights
    })
    if (Result.isFailure(scored))
      at(
        item,
        scoringPath(scored.failure, sc),
        `the scoring core cannot score this draft: ${scored.failure.message}`
      )

    const draft = draftOf(sc, list, entity, catalogue, domain_weights)
    const storedDraft = same === undefined ? undefined : view.drafts.get(same.id)
    const change: Change =
      same === undefined
        ? "created"
        : same.status !== "draft" || (storedDraft !== undefined && sameDraft(storedDraft, draft))
          ? "unchanged"
          : "updated"
    if (sameVersion === undefined) {
      const kept = keptDraft(store, item, draft, change)
      checked.push(kept)
      drafts.set(entity.id, sc.scorecard_version, kept)
    }
  }
  return { list: checked, byVersion: drafts }
}
