/**
 * What an import needs to know of the store before it can be judged: the
 * entities already there, the stored catalogues, the scorecards and history of
 * the stored entities it touches, and the published composites of the
 * dependencies its publications will read. The `Importer` reads exactly this
 * through the ports (a bounded number of queries per touched entity, none per
 * new entity), and the rules in `ImportValidation` are pure functions over it.
 */
import type { DomainWeights } from "../model/DomainWeights.ts"
import type { EntityRecord } from "../model/Entity.ts"
import { type EntityType, EntityTypes } from "../model/EntityType.ts"
import { isIsoDateTime, isoTimestamp } from "../model/Primitives.ts"
import type { Question } from "../model/Question.ts"
import type { Scorecard } from "../model/Scorecard.ts"
import type { HistoryEntryRecord, StoredScorecard } from "../ports/ScorecardRepository.ts"
import type { ImportContent } from "./ImportDecode.ts"

export interface StoreView {
  /** Every stored entity of each type. */
  readonly entities: { readonly [T in EntityType]: ReadonlyArray<EntityRecord> }
  /** The stored catalogue of each type, in canonical order. */
  readonly catalogues: { readonly [T in EntityType]: ReadonlyArray<Question> }
  /** Every scorecard version (list fields) of the stored entities the import touches, by entity id. */
  readonly scorecards: ReadonlyMap<string, ReadonlyArray<Scorecard>>
  /** Stored drafts in full that the import re-saves or publishes, by scorecard id. */
  readonly drafts: ReadonlyMap<string, StoredScorecard>
  /** Stored history of the stored entities the import adds history to, by entity id. */
  readonly history: ReadonlyMap<string, ReadonlyArray<HistoryEntryRecord>>
  /** Headline composite of the latest published scorecard of stored dependencies, by `type:id`. */
  readonly publishedComposites: ReadonlyMap<string, number | null>
  /** as_of of the latest stored quantum snapshot. */
  readonly quantumAsOf: string | undefined
  /** Slugs of the rows of the latest stored quantum snapshot. */
  readonly quantumSlugs: ReadonlyArray<string>
}

export const emptyStoreView = (): StoreView => ({
  entities: Object.fromEntries(EntityTypes.map((t) => [t, []])) as unknown as StoreView["entities"],
  catalogues: Object.fromEntries(EntityTypes.map((t) => [t, []])) as unknown as StoreView["catalogues"],
  scorecards: new Map(),
  drafts: new Map(),
  history: new Map(),
  publishedComposites: new Map(),
  quantumAsOf: undefined,
  quantumSlugs: []
})

export interface ResolvedEntity {
  readonly entity_type: EntityType
  readonly id: string
  readonly slug: string
  readonly categories: ReadonlyArray<string>
  /** The entity's own weights as this import gives them (the store does not expose them). */
  readonly domain_weights: DomainWeights | undefined
  /** Whether an entity with this id is already stored (so it may have scorecards and history). */
  readonly stored: boolean
}

export const slugKey = (type: string, slug: string): string => `${type}:${slug}`
/** An id as maps key it; the id itself when it is lower case already, so that keys share its text. */
export const idKey = (id: string): string => {
  const lower = id.toLowerCase()
  return lower === id ? id : lower
}

/**
 * Resolves `(entity_type, slug)` as the store will after the import: an entity
 * of the import wins, and a stored entity that the import renames no longer
 * answers to its old slug.
 */
export interface EntityIndex {
  readonly resolve: (type: EntityType, slug: string) => ResolvedEntity | undefined
  /** Stored entities by lower-cased id, whatever their type. */
  readonly storedById: ReadonlyMap<
    string,
    { readonly entity_type: EntityType; readonly record: EntityRecord }
  >
}

/**
 * The first imported entity of each type and slug, as columns by position
 * rather than an object each; `at` makes the object `resolve` answers. Each
 * distinct categories list and weights object is held once, by position:
 * entities repeat a few of them, and each read of a decoded record makes
 * them afresh. Shared values are only read, never changed.
 */
const importedColumns = (size: number) => {
  const ids: Array<string> = []
  const stored = new Uint8Array(size)
  const categoriesAt = new Uint32Array(size)
  /** Position in `weightValues` plus one; 0: the entity gives none. */
  const weightsAt = new Uint32Array(size)
  const categoryValues: Array<ReadonlyArray<string>> = []
  const weightValues: Array<DomainWeights> = []
  const categoryKeys = new Map<string, number>()
  const weightKeys = new Map<string, number>()
  const categoriesOf = (list: ReadonlyArray<string> | undefined): number => {
    const key = list === undefined ? "" : JSON.stringify(list)
    const known = categoryKeys.get(key)
    if (known !== undefined) return known
    categoryKeys.set(key, categoryValues.length)
    return categoryValues.push(list ?? []) - 1
  }
  const weightsOf = (w: DomainWeights | undefined): number => {
    if (w === undefined) return 0
    const key = weightsKey(w)
    const known = key === undefined ? undefined : weightKeys.get(key)
    if (known !== undefined) return known
    const at = weightValues.push(w)
    if (key !== undefined) weightKeys.set(key, at)
    return at
  }
  return {
    add: (
      id: string,
      isStored: boolean,
      categories: ReadonlyArray<string> | undefined,
      w: DomainWeights | undefined
    ) => {
      const i = ids.push(id) - 1
      stored[i] = isStored ? 1 : 0
      categoriesAt[i] = categoriesOf(categories)
      weightsAt[i] = weightsOf(w)
      return i
    },
    at: (i: number, entity_type: EntityType, slug: string): ResolvedEntity => ({
      entity_type,
      id: ids[i]!,
      slug,
      categories: categoryValues[categoriesAt[i]!]!,
      domain_weights: weightsAt[i] === 0 ? undefined : weightValues[weightsAt[i]! - 1],
      stored: stored[i] === 1
    })
  }
}

/** A key that tells weights objects apart by their keys, order and values; undefined when one is not a plain number. */
const weightsKey = (w: DomainWeights): string | undefined => {
  let key = ""
  for (const [k, v] of Object.entries(w)) {
    if (typeof v !== "number" || Object.is(v, -0)) return undefined
    key += `${JSON.stringify(k)}:${v},`
  }
  return key
}

export const indexEntities = (content: ImportContent, view: StoreView): EntityIndex => {
  const storedById = new Map<string, { entity_type: EntityType; record: EntityRecord }>()
  for (const type of EntityTypes)
    for (const record of view.entities[type]) storedById.set(idKey(record.id), { entity_type: type, record })
  // By type, then slug: no `type:slug` text per entity.
  const imported = new Map<EntityType, Map<string, number>>()
  const columns = importedColumns(content.entities.length)
  const reimported = new Set<string>()
  for (const { value } of content.entities) {
    const { entity_type, record } = value
    const stored = storedById.has(idKey(record.id))
    if (stored) reimported.add(idKey(record.id))
    const bySlug = imported.get(entity_type) ?? new Map<string, number>()
    if (bySlug.size === 0) imported.set(entity_type, bySlug)
    if (bySlug.has(record.slug)) continue
    bySlug.set(record.slug, columns.add(record.id, stored, record.categories, value.domain_weights))
  }
  const storedBySlug = new Map<string, ResolvedEntity>()
  for (const [id, { entity_type, record }] of storedById) {
    if (reimported.has(id)) continue
    storedBySlug.set(slugKey(entity_type, record.slug), {
      entity_type,
      id: record.id,
      slug: record.slug,
      categories: record.categories ?? [],
      domain_weights: undefined,
      stored: true
    })
  }
  return {
    resolve: (type, slug) => {
      const at = imported.get(type)?.get(slug)
      if (at !== undefined) return columns.at(at, type, slug)
      return storedBySlug.size === 0 ? undefined : storedBySlug.get(slugKey(type, slug))
    },
    storedById
  }
}

export interface EntityAddress {
  readonly entity_type: EntityType
  readonly entity_id: string
}

/** Second read: scorecard lists and history of the stored entities the import touches. */
export const storeNeeds = (
  content: ImportContent,
  index: EntityIndex
): {
  readonly scorecardsOf: ReadonlyArray<EntityAddress>
  readonly historyOf: ReadonlyArray<EntityAddress>
} => {
  const scorecardsOf = new Map<string, EntityAddress>()
  const historyOf = new Map<string, EntityAddress>()
  const touch = (into: Map<string, EntityAddress>, type: EntityType, slug: string) => {
    const e = index.resolve(type, slug)
    if (e?.stored === true) into.set(idKey(e.id), { entity_type: type, entity_id: e.id })
  }
  for (const { value } of content.scorecards) touch(scorecardsOf, value.entity_type, value.slug)
  for (const { value } of content.publications) touch(scorecardsOf, value.entity_type, value.slug)
  for (const { value } of content.history) {
    touch(scorecardsOf, value.entity_type, value.slug)
    touch(historyOf, value.entity_type, value.slug)
  }
  return { scorecardsOf: [...scorecardsOf.values()], historyOf: [...historyOf.values()] }
}

/**
 * Third read: stored drafts in full (those the import re-saves, to compare,
 * and those it publishes, to score), and the published composites of stored
 * dependencies (to score publications as the Publisher will).
 */
export const draftNeeds = (
  content: ImportContent,
  index: EntityIndex,
  scorecards: ReadonlyMap<string, ReadonlyArray<Scorecard>>
): {
  readonly drafts: ReadonlyArray<{ readonly entity_type: EntityType; readonly id: string }>
  readonly dependencies: ReadonlyMap<EntityType, ReadonlyArray<string>>
} => {
  const importIds = new Set(content.scorecards.map((s) => idKey(s.value.id)))
  const published = new Set<string>()
  for (const { value } of content.publications) {
    const e = index.resolve(value.entity_type, value.slug)
    if (e !== undefined) published.add(`${idKey(e.id)}:${value.scorecard_version}`)
  }
  const drafts: Array<{ entity_type: EntityType; id: string }> = []
  for (const list of scorecards.values())
    for (const s of list)
      if (
        s.status === "draft" &&
        (importIds.has(idKey(s.id)) || published.has(`${idKey(s.entity_id)}:${s.scorecard_version}`))
      )
        drafts.push({ entity_type: s.entity_type, id: s.id })
  const dependencies = new Map<EntityType, Set<string>>()
  for (const { value } of content.scorecards)
    for (const dep of value.dependencies ?? []) {
      const e = index.resolve(dep.entity_type, dep.slug)
      if (e?.stored !== true) continue
      const ids = dependencies.get(dep.entity_type) ?? new Set<string>()
      dependencies.set(dep.entity_type, ids.add(e.id))
    }
  return {
    drafts,
    dependencies: new Map([...dependencies].map(([type, ids]) => [type, [...ids]]))
  }
}

// ---------------------------------------------------------------------------
// Comparing with what is stored

/**
 * Stores give date-times back in their own spelling (Postgres: the service's
 * form to the millisecond, `...T00:00:00+00:00` for an input's `...T00:00:00Z`;
 * memory: the input's text) and keys in their own order; neither is a change.
 * Both sides are re-spelled with `isoTimestamp` of the instant truncated to the
 * millisecond, the precision a timestamptz reads back with, so that an input's
 * microseconds do not count as a change either.
 */
const canonical = (value: unknown): unknown => {
  if (typeof value === "string") return isIsoDateTime(value) ? isoTimestamp(Date.parse(value)) : value
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined) out[key] = canonical(v)
    }
    return out
  }
  return value
}

export const sameContent = (a: unknown, b: unknown): boolean =>
  JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))

const byKey =
  <A>(key: (a: A) => string) =>
  (xs: ReadonlyArray<A>): Array<A> =>
    [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))

/** Two drafts hold the same content whatever order a store lists answers, evidence and dependencies in. */
export const sameDraft = (a: StoredScorecard, b: StoredScorecard): boolean => {
  const norm = (s: StoredScorecard) => ({
    ...s,
    answers: byKey((x: StoredScorecard["answers"][number]) => x.question_id)(s.answers),
    evidence: byKey((x: StoredScorecard["evidence"][number]) => x.question_id)(s.evidence),
    dependencies: byKey((x: StoredScorecard["dependencies"][number]) => `${x.entity_type}:${x.slug}`)(
      s.dependencies
    )
  })
  return sameContent(norm(a), norm(b))
}
