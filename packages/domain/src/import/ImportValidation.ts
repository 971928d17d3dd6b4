/**
 * The rules an import must pass before anything is written, as one pure
 * function over the decoded files and a view of the store. Every rule runs
 * and every failure is collected, so the operator fixes a file in one round;
 * on success the result is the `ImportPlan` that `Importer.apply` writes.
 * The schema has checked each value on its own; these rules look across
 * values, files and the store (entities here, the drafts in
 * `ImportScorecards`, questions in `ImportCatalogue`, publish acts in
 * `ImportReplay`).
 */
import { Result } from "effect"
import type { HistoryEntryRecord } from "../ports/ScorecardRepository.ts"
import { MaxQuantumRows, readRows } from "../quantum/QuantumRows.ts"
import { type CatalogueMode, checkQuestions } from "./ImportCatalogue.ts"
import type { Decoded, ImportContent, Located } from "./ImportDecode.ts"
import type { ImportIssue } from "./ImportIssue.ts"
import type {
  Change,
  ImportPlan,
  PlannedDraft,
  PlannedEntity,
  PlannedHistory,
  PlannedPublication,
  PlannedQuantum,
  SupersededScorecard
} from "./ImportPlan.ts"
import { countChanges } from "./ImportPlan.ts"
import { type ImportedDrafts, type Report, replayPublications, versionKey } from "./ImportReplay.ts"
import type { ReadonlyVersionMap } from "./ImportVersionMap.ts"
import { checkScorecards } from "./ImportScorecards.ts"
import {
  type EntityIndex,
  idKey,
  indexEntities,
  sameContent,
  slugKey,
  type StoreView
} from "./ImportStoreView.ts"
import { isBroken, sub, where } from "./ImportPlaces.ts"
import { recordRefOf, recordStore } from "./ImportRecordStore.ts"
import type { ChunkSpill } from "./ImportSpill.ts"
import { lazyPlannedEntity, plannedOfKept, storedEntity } from "./ImportPlanRecords.ts"

// ---------------------------------------------------------------------------
// Entities

const checkEntities = (
  content: ImportContent,
  view: StoreView,
  index: EntityIndex,
  report: Report
): Array<PlannedEntity> => {
  const byId = new Map<string, Located<unknown>>()
  const bySlug = new Map<string, Located<unknown>>()
  const storedBySlug = new Map<string, string>()
  for (const [type, records] of Object.entries(view.entities))
    for (const r of records) storedBySlug.set(slugKey(type, r.slug), r.id)
  return content.entities.map((item) => {
    const { entity_type: type, record, domain_weights } = item.value
    const id = idKey(record.id)
    const sameId = byId.get(id)
    if (sameId !== undefined)
      report(item, ".record.id", `duplicate entity id ${record.id}: ${where(sameId)} has it too`)
    else byId.set(id, item)
    const key = slugKey(type, record.slug)
    const sameSlug = bySlug.get(key)
    if (sameSlug !== undefined)
      report(
        item,
        ".record.slug",
        `duplicate slug: ${where(sameSlug)} is also the ${type} ${record.slug}; slugs are unique within a type`
      )
    else bySlug.set(key, item)
    const stored = index.storedById.get(id)
    if (stored !== undefined && stored.entity_type !== type)
      report(
        item,
        ".record.id",
        `id ${record.id} is already stored as a ${stored.entity_type}; an entity cannot change type`
      )
    const holder = storedBySlug.get(key)
    if (holder !== undefined && idKey(holder) !== id)
      report(
        item,
        ".record.slug",
        `slug ${record.slug} already belongs to another ${type} in the database (id ${holder}); slugs are unique within a type`
      )
    const change: Change =
      stored === undefined ? "created" : sameContent(stored.record, record) ? "unchanged" : "updated"
    const write = change !== "unchanged" || domain_weights !== undefined
    const ref = recordRefOf(item)
    return ref === undefined
      ? { entity: storedEntity(item.value), change, write }
      : lazyPlannedEntity(ref, change, write)
  })
}

// ---------------------------------------------------------------------------
// History

const checkHistory = (
  content: ImportContent,
  view: StoreView,
  index: EntityIndex,
  drafts: ImportedDrafts,
  published: ReadonlyVersionMap<unknown>,
  at: Report
): Array<PlannedHistory> => {
  const seen = new Map<string, Located<unknown>>()
  const planned: Array<PlannedHistory> = []
  for (const item of content.history) {
    const h = item.value
    const entity = index.resolve(h.entity_type, h.slug)
    if (entity === undefined) {
      if (!isBroken(content.broken.entities, slugKey(h.entity_type, h.slug)))
        at(item, ".slug", `no ${h.entity_type} with slug ${h.slug} in this import or in the database`)
      continue
    }
    const stored = view.history.get(entity.id) ?? []
    const storedDrafts = new Set(
      (view.scorecards.get(entity.id) ?? [])
        .filter((s) => s.status === "draft")
        .map((s) => s.scorecard_version)
    )
    const entries: Array<HistoryEntryRecord> = []
    const changes: Array<Change> = []
    for (const [j, e] of h.entries.entries()) {
      const key = versionKey(entity.id, e.scorecard_version)
      const path = sub("entries", j, "scorecard_version")
      const name = `version ${e.scorecard_version} of ${h.entity_type} ${h.slug}`
      const twice = seen.get(key)
      if (twice !== undefined) {
        at(item, path, `${name} has another history entry at ${where(twice)}`)
        continue
      }
      seen.set(key, { source: item.source, path: item.path + sub("entries", j), value: e })
      const storedEntry = stored.find((s) => s.scorecard_version === e.scorecard_version)
      if (published.has(entity.id, e.scorecard_version)) {
        at(item, path, `${name} is published by this import, and publishing writes its history entry`)
      } else if (
        drafts.byVersion.has(entity.id, e.scorecard_version) ||
        storedDrafts.has(e.scorecard_version)
      ) {
        at(item, path, `${name} is a draft scorecard; its history entry is written when it is published`)
      } else if (storedEntry === undefined) {
        entries.push(e)
        changes.push("created")
      } else if (sameContent(storedEntry, e)) {
        changes.push("unchanged")
      } else {
        at(
          item,
          sub("entries", j),
          `the stored history entry of ${name} differs from this one; history is append-only`
        )
      }
    }
    planned.push({ entity_type: h.entity_type, entity_id: entity.id, entries, counts: countChanges(changes) })
  }
  return planned
}

// ---------------------------------------------------------------------------
// Quantum snapshot

const checkQuantum = (content: ImportContent, view: StoreView, at: Report): PlannedQuantum | undefined => {
  const [first, ...more] = content.quantum
  for (const item of more)
    at(item, "", `only one quantum_snapshot per import; ${where(first!)} has one already`)
  if (first === undefined) return undefined
  const q = first.value
  if (q.rows.length > MaxQuantumRows) {
    at(first, ".rows", `the snapshot has ${q.rows.length} rows, more than the ${MaxQuantumRows} accepted`)
    return undefined
  }
  const read = readRows(q.rows)
  if (read.rows.length === 0)
    at(
      first,
      ".rows",
      `no row of the snapshot is readable (${read.rows_skipped} skipped); it would replace the table with an empty one`
    )
  const stored = view.quantumAsOf
  const change: Change =
    stored === undefined ? "created" : Date.parse(stored) === Date.parse(q.as_of) ? "unchanged" : "updated"
  const kept = new Set(read.rows.map((r) => r.slug))
  const removedRows =
    change === "unchanged" ? [] : [...new Set(view.quantumSlugs)].filter((slug) => !kept.has(slug))
  return { as_of: q.as_of, sample: q.sample, rows: q.rows, change, removedRows }
}

// ---------------------------------------------------------------------------
// Published scorecards that the publications supersede

/** The stored published scorecard of each entity that a replayed (not skipped) publication supersedes. */
const supersededBy = (
  publications: ReadonlyArray<PlannedPublication>,
  view: StoreView
): Array<SupersededScorecard> => {
  const seen = new Set<string>()
  const out: Array<SupersededScorecard> = []
  for (const p of publications) {
    if (p.skip || seen.has(idKey(p.entity_id))) continue
    seen.add(idKey(p.entity_id))
    const live = (view.scorecards.get(p.entity_id) ?? []).find((s) => s.status === "published")
    if (live !== undefined)
      out.push({
        entity_type: p.request.entity_type,
        slug: p.request.slug,
        scorecard_version: live.scorecard_version
      })
  }
  return out
}

// ---------------------------------------------------------------------------
// Incident reports

/**
 * A report's received_at is the clock of its ingest: not before its source
 * first saw the hack, and going forward in ingest order (a report without one
 * is received at the time of the import, after every dated one).
 */
const checkIncidents = (content: ImportContent, at: Report): void => {
  let previous: { readonly item: Located<unknown>; readonly millis: number } | undefined
  let undated: Located<unknown> | undefined
  for (const item of content.incidents) {
    const r = item.value
    if (r.received_at === undefined) {
      undated ??= item
      continue
    }
    const millis = Date.parse(r.received_at)
    if (millis < Date.parse(r.first_seen_at))
      at(item, ".received_at", `received_at ${r.received_at} is before first_seen_at ${r.first_seen_at}`)
    if (undated !== undefined)
      at(
        item,
        ".received_at",
        `reports are ingested in order, and ${where(undated)} has no received_at, so it is received at the time of the import, after this one`
      )
    else if (previous !== undefined && millis < previous.millis)
      at(
        item,
        ".received_at",
        `reports are ingested in order: received_at ${r.received_at} is before that of ${where(previous.item)}`
      )
    if (previous === undefined || millis >= previous.millis) previous = { item, millis }
  }
}

// ---------------------------------------------------------------------------

/** Every rule over the decoded sources; the plan, or every issue found (schema issues first). */
export const validateImport = (
  decoded: Decoded,
  view: StoreView,
  sources: ReadonlyArray<string>,
  mode: CatalogueMode = "replace",
  spill?: ChunkSpill
): Result.Result<ImportPlan, ReadonlyArray<ImportIssue>> => {
  const { content } = decoded
  const issues: Array<ImportIssue> = [...decoded.issues]
  const at: Report = (item, subPath, message) =>
    issues.push({ source: item.source, path: item.path + subPath, message })
  const index = indexEntities(content, view)
  const entities = checkEntities(content, view, index, at)
  const { planned: catalogues, catalogueOf } = checkQuestions(content, view, (i) => issues.push(i), at, mode)
  const store = recordStore(spill)
  const drafts = checkScorecards(content, view, index, catalogueOf, at, store)
  const replay = replayPublications(content, view, index, drafts, at)
  const history = checkHistory(content, view, index, drafts, replay.published, at)
  const quantum = checkQuantum(content, view, at)
  checkIncidents(content, at)
  if (issues.length > 0) return Result.fail(issues)
  const plannedDrafts: Array<PlannedDraft> = drafts.list.map((kept) =>
    plannedOfKept(store, kept, kept.stage ?? "early")
  )
  return Result.succeed({
    sources,
    entities,
    catalogues,
    drafts: plannedDrafts,
    history,
    publications: replay.publications,
    incidents: content.incidents.map((i) => i.value),
    quantum,
    superseded: supersededBy(replay.publications, view)
  })
}
