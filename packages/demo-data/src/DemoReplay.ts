/**
 * Replays the publish acts of import files with the scoring core, in the
 * order given, the way the publisher does: each dependency counts with the
 * headline of its latest version published so far, or as unrated. It gives
 * the figures the service will show for the demo, so tests can check that the
 * data exercises what it claims to (drag, unrated dependencies, gates) and
 * the builder can print a summary.
 */
import type { ImportFile, ImportScorecardInput } from "@ratings/domain/import/ImportFile"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Dependency } from "@ratings/domain/scoring/DependencyDrag"
import { mvcGates } from "@ratings/domain/scoring/MvcGates"
import { type ScoreResult, scoreEntity } from "@ratings/domain/scoring/ScoreEntity"
import { Result } from "effect"

export interface ReplayedVersion {
  readonly entity_type: EntityType
  readonly slug: string
  readonly scorecard_version: number
  readonly published_at: string
  readonly result: ScoreResult
  /** Chains only: the minimum-viable-chain gates computed from the answers. */
  readonly mvc_gates: { readonly [gate: string]: boolean } | null
}

const refKey = (type: string, slug: string): string => `${type}:${slug}`

/** Categories of every entity in the files, by `type:slug` (tokens may omit theirs). */
export const categoriesByEntity = (files: ReadonlyArray<ImportFile>): Map<string, ReadonlyArray<string>> => {
  const out = new Map<string, ReadonlyArray<string>>()
  for (const f of files) {
    for (const e of f.entities ?? []) out.set(refKey(e.entity_type, e.record.slug), e.record.categories ?? [])
  }
  return out
}

const gateIndex = (files: ReadonlyArray<ImportFile>): Map<string, string | null> => {
  const out = new Map<string, string | null>()
  for (const f of files)
    for (const q of f.questions ?? []) if (q.entity_type === "chain") out.set(q.id, q.gate ?? null)
  return out
}

/** Scores one draft with the core, its dependencies resolved against the given published headlines. */
export const scoreDraft = (
  card: ImportScorecardInput,
  categories: ReadonlyArray<string>,
  headlineOf: (type: EntityType, slug: string) => number | null
) =>
  scoreEntity({
    entity_type: card.entity_type,
    categories,
    answers: card.answers,
    domain_weights: card.domain_weights,
    dependencies: (card.dependencies ?? []).map(
      (d): Dependency => ({
        entity_type: d.entity_type,
        slug: d.slug,
        exposure: d.exposure,
        composite_score: headlineOf(d.entity_type, d.slug)
      })
    )
  })

/** Every publish act of the files, scored in order; throws on a publication the core cannot score. */
export const replayPublications = (files: ReadonlyArray<ImportFile>): ReadonlyArray<ReplayedVersion> => {
  const categories = categoriesByEntity(files)
  const gates = gateIndex(files)
  const drafts = new Map<string, ImportScorecardInput>()
  for (const f of files) {
    for (const s of f.scorecards ?? [])
      drafts.set(`${refKey(s.entity_type, s.slug)}:v${s.scorecard_version}`, s)
  }
  const headline = new Map<string, number>()
  const out: Array<ReplayedVersion> = []
  for (const f of files) {
    for (const p of f.publications ?? []) {
      const key = refKey(p.entity_type, p.slug)
      const card = drafts.get(`${key}:v${p.scorecard_version}`)
      if (card === undefined) throw new Error(`publication of ${key} v${p.scorecard_version} has no draft`)
      const scored = scoreDraft(card, categories.get(key) ?? [], (t, s) => headline.get(refKey(t, s)) ?? null)
      if (Result.isFailure(scored))
        throw new Error(`${key} v${p.scorecard_version}: ${scored.failure.message}`)
      headline.set(key, scored.success.composite_score)
      out.push({
        entity_type: p.entity_type,
        slug: p.slug,
        scorecard_version: p.scorecard_version,
        published_at: p.published_at,
        result: scored.success,
        mvc_gates: p.entity_type === "chain" ? mvcGates(card.answers, (id) => gates.get(id)) : null
      })
    }
  }
  return out
}
