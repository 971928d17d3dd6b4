/**
 * The publish acts of an import, checked by playing them forward before
 * anything is written. The Publisher publishes an entity's latest draft, reads
 * its dependencies' published composites at that moment, and refuses a draft
 * whose claimed figures it does not reproduce; replaying in file order here
 * with the same scoring core means a plan that validates also publishes, so
 * the one transaction of `apply` does not fail half way. It also decides when
 * each draft is saved (`DraftStage`), so that every replayed publication finds
 * its own version as the latest draft.
 */
import { Result } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { Scorecard } from "../model/Scorecard.ts"
import { isoTimestamp } from "../model/Primitives.ts"
import type { StoredScorecard } from "../ports/ScorecardRepository.ts"
import { disagreement } from "../scoring/FiguresDisagree.ts"
import { scoreEntity } from "../scoring/ScoreEntity.ts"
import type { ImportContent, Located } from "./ImportDecode.ts"
import type { ImportPublication, ImportScorecard } from "./ImportFile.ts"
import type { DraftStage, PlannedPublication } from "./ImportPlan.ts"
import { type EntityIndex, idKey, type ResolvedEntity, type StoreView } from "./ImportStoreView.ts"
import { where } from "./ImportPlaces.ts"
import { answerFieldsOf } from "./ImportAnswerTable.ts"
import { noVersions, type ReadonlyVersionMap, type VersionMap, versionMap } from "./ImportVersionMap.ts"

export interface ImportedDraft {
  readonly item: Located<ImportScorecard>
  /** The draft as it will be saved: it may be read afresh on each access (ImportPlanRecords.ts `keptDraft`). */
  readonly draft: StoredScorecard
  /** The draft's own `id`, `entity_id` and `scorecard_version`, which the replay reads without reading the draft. */
  readonly id: string
  readonly entity_id: string
  readonly scorecard_version: number
  /** When the draft is saved, as the replay stages it; undefined: before any publication ("early"). */
  stage: DraftStage | undefined
}

/** The drafts validation keeps: in the order they were checked, and by entity and version. */
export interface ImportedDrafts<D extends ImportedDraft = ImportedDraft> {
  readonly list: ReadonlyArray<D>
  readonly byVersion: ReadonlyVersionMap<D>
}

export type Report = (item: Located<unknown>, subPath: string, message: string) => void

export interface Replay {
  readonly publications: ReadonlyArray<PlannedPublication>
  /**
   * Every publication of the import, skipped or not, by entity and version:
   * what the history rules read, so held only when the import has history.
   */
  readonly published: ReadonlyVersionMap<unknown>
}

export const versionKey = (entityId: string, version: number): string => `${idKey(entityId)}:${version}`

/** What the replay has played so far, and the inputs it reads. */
interface ReplayState {
  readonly content: ImportContent
  readonly view: StoreView
  readonly index: EntityIndex
  readonly drafts: ImportedDrafts
  readonly report: Report
  readonly publications: Array<PlannedPublication>
  /** Each publication by entity and version. */
  readonly seen: VersionMap<Located<ImportPublication>>
  /** By entity id key: its latest publication replayed so far. */
  readonly latest: Map<string, PlannedPublication>
  /** By type, then id key: the composite score of its latest publication replayed so far. */
  readonly composites: Map<EntityType, Map<string, number | null>>
}

/** The latest publication of an entity: replayed by this import, else the stored one. */
const latestOf = (state: ReplayState, entityId: string): { version: number; at: number } | undefined => {
  const key = idKey(entityId)
  const replayed = state.latest.get(key)
  if (replayed !== undefined) return { version: replayed.scorecard_version, at: replayed.published_at }
  const published = (state.view.scorecards.get(entityId) ?? []).find((s) => s.status === "published")
  return published === undefined
    ? undefined
    : {
        version: published.scorecard_version,
        at: Date.parse(published.scorecard_published_at ?? "1970-01-01T00:00:00Z")
      }
}

/** The published composite of a dependency at this point of the replay (null when it has none). */
const compositeOf = (state: ReplayState, type: EntityType, slug: string): number | null => {
  const e = state.index.resolve(type, slug)
  if (e === undefined) return null
  const key = idKey(e.id)
  const replayed = state.composites.get(type)
  if (replayed?.has(key) === true) return replayed.get(key) ?? null
  return state.view.publishedComposites.get(`${type}:${key}`) ?? null
}

/** A publication the replay can play: its entity and the scorecard it publishes. */
interface Target {
  readonly entity: ResolvedEntity
  readonly stored: Scorecard | undefined
  readonly imported: ImportedDraft | undefined
}

/**
 * Finds the entity and the scorecard a publication names, reporting an
 * unknown entity, a version published twice in the import, or a version
 * neither the import nor the store holds; undefined when it cannot be played.
 */
const locate = (state: ReplayState, item: Located<ImportPublication>): Target | undefined => {
  const p = item.value
  const entity = state.index.resolve(p.entity_type, p.slug)
  if (entity === undefined) {
    const brokenEntities = state.content.broken.entities
    if (!brokenEntities.has("*") && !brokenEntities.has(`${p.entity_type}:${p.slug}`))
      state.report(item, ".slug", `no ${p.entity_type} with slug ${p.slug} in this import or in the database`)
    return undefined
  }
  const twice = state.seen.get(entity.id, p.scorecard_version)
  if (twice !== undefined) {
    state.report(
      item,
      ".scorecard_version",
      `version ${p.scorecard_version} of ${p.entity_type} ${p.slug} is already published by ${where(twice)}`
    )
    return undefined
  }
  state.seen.set(entity.id, p.scorecard_version, item)
  const stored = (state.view.scorecards.get(entity.id) ?? []).find(
    (s) => s.scorecard_version === p.scorecard_version
  )
  const imported = state.drafts.byVersion.get(entity.id, p.scorecard_version)
  if (stored === undefined && imported === undefined) {
    const brokenCards = state.content.broken.scorecards
    const brokenKey = `${p.entity_type}:${p.slug}:${p.scorecard_version}`
    if (!brokenCards.has("*") && !brokenCards.has(brokenKey))
      state.report(
        item,
        ".scorecard_version",
        `${p.entity_type} ${p.slug} has no scorecard version ${p.scorecard_version} in this import or in the database`
      )
    return undefined
  }
  return { entity, stored, imported }
}

/**
 * Publications of an entity go forward in version and in time, and the
 * published version must be the entity's latest draft (no newer stored draft).
 */
const checkOrder = (
  state: ReplayState,
  item: Located<ImportPublication>,
  entity: ResolvedEntity,
  at: number
) => {
  const p = item.value
  const previous = latestOf(state, entity.id)
  if (previous !== undefined && p.scorecard_version <= previous.version) {
    state.report(
      item,
      ".scorecard_version",
      `version ${p.scorecard_version} is not newer than version ${previous.version}, published before it: publications go forward`
    )
  } else if (previous !== undefined && at < previous.at) {
    state.report(
      item,
      ".published_at",
      `published_at is earlier than the publication of version ${previous.version} (${isoTimestamp(previous.at)})`
    )
  }
  const newer = (state.view.scorecards.get(entity.id) ?? []).find(
    (s) => s.status === "draft" && s.scorecard_version > p.scorecard_version
  )
  if (newer !== undefined) {
    state.report(
      item,
      ".scorecard_version",
      `the database holds draft version ${newer.scorecard_version} of ${p.entity_type} ${p.slug}; the Publisher ` +
        `publishes the latest draft, so it would publish that one instead of version ${p.scorecard_version}`
    )
  }
}

/**
 * Scores the published draft as the Publisher would, with its dependencies'
 * composites at this point of the replay; reports figures it does not
 * reproduce and records the entity's new composite.
 */
const replayScore = (state: ReplayState, item: Located<ImportPublication>, target: Target) => {
  const p = item.value
  const { entity, stored, imported } = target
  const draft = imported?.draft ?? (stored === undefined ? undefined : state.view.drafts.get(stored.id))
  if (draft === undefined) return
  const dependencies = draft.dependencies.map((d) => ({
    ...d,
    composite_score: compositeOf(state, d.entity_type, d.slug)
  }))
  const scored = scoreEntity({
    entity_type: p.entity_type,
    categories: entity.categories,
    answers: answerFieldsOf(draft),
    domain_weights: draft.domain_weights,
    dependencies
  })
  if (Result.isFailure(scored)) {
    // An imported draft that cannot be scored is reported where it is defined.
    if (imported === undefined)
      state.report(item, ".scorecard_version", `the stored draft cannot be scored: ${scored.failure.message}`)
  } else {
    const refused = disagreement(draft, scored.success)
    if (refused !== undefined) {
      if (imported !== undefined) state.report(imported.item, ".composite_score", refused.message)
      else state.report(item, ".scorecard_version", refused.message)
    }
    const replayed = state.composites.get(p.entity_type) ?? new Map<string, number | null>()
    if (replayed.size === 0) state.composites.set(p.entity_type, replayed)
    replayed.set(idKey(entity.id), scored.success.composite_score)
  }
}

/**
 * Stages the entity's import drafts around the publication about to be
 * planned: a draft up to the published version is saved before it (unless an
 * earlier publication already needs it), a newer one late.
 */
const stageDrafts = (state: ReplayState, entity: ResolvedEntity, version: number) => {
  const position = state.publications.length
  for (const d of state.drafts.byVersion.valuesOf(entity.id)) {
    const staged = d.stage
    if (d.scorecard_version <= version && (staged === undefined || staged === "late"))
      d.stage = { beforePublication: position }
    else if (staged === undefined) d.stage = "late"
  }
}

/** Plays one publication: skipped when its version is already published, else checked, scored and planned. */
const replayOne = (state: ReplayState, item: Located<ImportPublication>) => {
  const target = locate(state, item)
  if (target === undefined) return
  const p = item.value
  const { entity, stored } = target
  const at = Date.parse(p.published_at)
  const request = { entity_type: p.entity_type, slug: p.slug, reasoning: p.reasoning, actor: p.actor }
  const planned = (skip: boolean): PlannedPublication => ({
    request,
    entity_id: entity.id,
    scorecard_version: p.scorecard_version,
    published_at: at,
    skip
  })
  if (stored !== undefined && stored.status !== "draft") {
    state.publications.push(planned(true))
    return
  }
  checkOrder(state, item, entity, at)
  replayScore(state, item, target)
  const played = planned(false)
  state.latest.set(idKey(entity.id), played)
  stageDrafts(state, entity, p.scorecard_version)
  state.publications.push(played)
}

/**
 * Plays the import's publications forward in file order, reporting every one
 * the Publisher would refuse; the planned publications and when each draft is
 * saved.
 */
export const replayPublications = (
  content: ImportContent,
  view: StoreView,
  index: EntityIndex,
  drafts: ImportedDrafts,
  report: Report
): Replay => {
  const state: ReplayState = {
    content,
    view,
    index,
    drafts,
    report,
    publications: [],
    seen: versionMap((item) => item.value.scorecard_version),
    latest: new Map(),
    composites: new Map()
  }
  for (const item of content.publications) replayOne(state, item)
  return {
    publications: state.publications,
    published: content.history.length === 0 ? noVersions : state.seen
  }
}
