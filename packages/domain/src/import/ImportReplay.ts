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
import { isoTimestamp } from "../model/Primitives.ts"
import type { StoredScorecard } from "../ports/ScorecardRepository.ts"
import { disagreement } from "../scoring/FiguresDisagree.ts"
import { scoreEntity } from "../scoring/ScoreEntity.ts"
import type { ImportContent, Located } from "./ImportDecode.ts"
import type { ImportScorecard } from "./ImportFile.ts"
import type { DraftStage, PlannedPublication } from "./ImportPlan.ts"
import { type EntityIndex, idKey, type StoreView } from "./ImportStoreView.ts"

export interface ImportedDraft {
  readonly item: Located<ImportScorecard>
  readonly draft: StoredScorecard
}

export type Report = (item: Located<unknown>, subPath: string, message: string) => void

export interface Replay {
  readonly publications: ReadonlyArray<PlannedPublication>
  /** Stage of each import draft (by lower-cased scorecard id) that is not saved early. */
  readonly stages: ReadonlyMap<string, DraftStage>
  /** `entityId:version` of every publication in the import, skipped or not. */
  readonly published: ReadonlySet<string>
}

const where = (item: Located<unknown>) => `${item.source} ${item.path}`

export const versionKey = (entityId: string, version: number): string => `${idKey(entityId)}:${version}`

export const replayPublications = (
  content: ImportContent,
  view: StoreView,
  index: EntityIndex,
  drafts: ReadonlyMap<string, ImportedDraft>,
  report: Report
): Replay => {
  const publications: Array<PlannedPublication> = []
  const stages = new Map<string, DraftStage>()
  const seen = new Map<string, Located<unknown>>()
  const latest = new Map<string, { version: number; at: number }>()
  const composites = new Map<string, number | null>()
  const brokenCards = content.broken.scorecards
  const brokenEntities = content.broken.entities

  const latestOf = (entityId: string) => {
    const key = idKey(entityId)
    if (latest.has(key)) return latest.get(key)
    const published = (view.scorecards.get(entityId) ?? []).find((s) => s.status === "published")
    return published === undefined
      ? undefined
      : {
          version: published.scorecard_version,
          at: Date.parse(published.scorecard_published_at ?? "1970-01-01T00:00:00Z")
        }
  }
  const compositeOf = (type: EntityType, slug: string): number | null => {
    const e = index.resolve(type, slug)
    if (e === undefined) return null
    const key = `${type}:${idKey(e.id)}`
    if (composites.has(key)) return composites.get(key) ?? null
    return view.publishedComposites.get(key) ?? null
  }
  const draftsByEntity = new Map<string, Array<ImportedDraft>>()
  for (const d of drafts.values()) {
    const key = idKey(d.draft.entity_id)
    const list = draftsByEntity.get(key)
    if (list === undefined) draftsByEntity.set(key, [d])
    else list.push(d)
  }
  for (const list of draftsByEntity.values())
    list.sort((a, b) => a.draft.scorecard_version - b.draft.scorecard_version)

  content.publications.forEach((item) => {
    const p = item.value
    const entity = index.resolve(p.entity_type, p.slug)
    if (entity === undefined) {
      if (!brokenEntities.has("*") && !brokenEntities.has(`${p.entity_type}:${p.slug}`))
        report(item, ".slug", `no ${p.entity_type} with slug ${p.slug} in this import or in the database`)
      return
    }
    const key = versionKey(entity.id, p.scorecard_version)
    const twice = seen.get(key)
    if (twice !== undefined) {
      report(
        item,
        ".scorecard_version",
        `version ${p.scorecard_version} of ${p.entity_type} ${p.slug} is already published by ${where(twice)}`
      )
      return
    }
    seen.set(key, item)
    const stored = (view.scorecards.get(entity.id) ?? []).find(
      (s) => s.scorecard_version === p.scorecard_version
    )
    const imported = drafts.get(key)
    if (stored === undefined && imported === undefined) {
      const brokenKey = `${p.entity_type}:${p.slug}:${p.scorecard_version}`
      if (!brokenCards.has("*") && !brokenCards.has(brokenKey))
        report(
          item,
          ".scorecard_version",
          `${p.entity_type} ${p.slug} has no scorecard version ${p.scorecard_version} in this import or in the database`
        )
      return
    }
    const at = Date.parse(p.published_at)
    const request = { entity_type: p.entity_type, slug: p.slug, reasoning: p.reasoning, actor: p.actor }
    const planned = {
      request,
      entity_id: entity.id,
      scorecard_version: p.scorecard_version,
      published_at: at
    }
    if (stored !== undefined && stored.status !== "draft") {
      publications.push({ ...planned, skip: true })
      return
    }
    const previous = latestOf(entity.id)
    if (previous !== undefined && p.scorecard_version <= previous.version) {
      report(
        item,
        ".scorecard_version",
        `version ${p.scorecard_version} is not newer than version ${previous.version}, published before it: publications go forward`
      )
    } else if (previous !== undefined && at < previous.at) {
      report(
        item,
        ".published_at",
        `published_at is earlier than the publication of version ${previous.version} (${isoTimestamp(previous.at)})`
      )
    }
    const newer = (view.scorecards.get(entity.id) ?? []).find(
      (s) => s.status === "draft" && s.scorecard_version > p.scorecard_version
    )
    if (newer !== undefined) {
      report(
        item,
        ".scorecard_version",
        `the database holds draft version ${newer.scorecard_version} of ${p.entity_type} ${p.slug}; the Publisher ` +
          `publishes the latest draft, so it would publish that one instead of version ${p.scorecard_version}`
      )
    }
    const draft = imported?.draft ?? (stored === undefined ? undefined : view.drafts.get(stored.id))
    if (draft !== undefined) {
      const dependencies = draft.dependencies.map((d) => ({
        ...d,
        composite_score: compositeOf(d.entity_type, d.slug)
      }))
      const scored = scoreEntity({
        entity_type: p.entity_type,
        categories: entity.categories,
        answers: draft.answers,
        domain_weights: draft.domain_weights,
        dependencies
      })
      if (Result.isFailure(scored)) {
        // An imported draft that cannot be scored is reported where it is defined.
        if (imported === undefined)
          report(item, ".scorecard_version", `the stored draft cannot be scored: ${scored.failure.message}`)
      } else {
        const refused = disagreement(draft, scored.success)
        if (refused !== undefined) {
          if (imported !== undefined) report(imported.item, ".composite_score", refused.message)
          else report(item, ".scorecard_version", refused.message)
        }
        composites.set(`${p.entity_type}:${idKey(entity.id)}`, scored.success.composite_score)
      }
    }
    latest.set(idKey(entity.id), { version: p.scorecard_version, at })
    const position = publications.length
    for (const d of draftsByEntity.get(idKey(entity.id)) ?? []) {
      const id = idKey(d.draft.id)
      const staged = stages.get(id)
      if (d.draft.scorecard_version <= p.scorecard_version && (staged === undefined || staged === "late"))
        stages.set(id, { beforePublication: position })
      else if (staged === undefined) stages.set(id, "late")
    }
    publications.push({ ...planned, skip: false })
  })
  return { publications, stages, published: new Set(seen.keys()) }
}
