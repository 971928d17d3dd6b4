/**
 * The ids an import file left out, matched to the store once it is read: a
 * derived entity id gives way to the id of the stored entity of that type and
 * slug, and a derived scorecard id to the stored scorecard's of that entity
 * and version, so a file without ids updates what is stored instead of
 * clashing with it. Given ids are never changed.
 */
import type { EntityRecord } from "../model/Entity.ts"
import type { EntityType } from "../model/EntityType.ts"
import type { Scorecard } from "../model/Scorecard.ts"
import type { ImportContent, Located } from "./ImportDecode.ts"
import type { ImportEntity, ImportScorecard } from "./ImportFile.ts"
import { scorecardKey } from "./ImportIdFill.ts"
import { type EntityIndex, idKey, slugKey } from "./ImportStoreView.ts"

/** Derived entity ids replaced by the ids of the stored entities of the same type and slug. */
export const matchStoredEntities = (
  content: ImportContent,
  stored: { readonly [T in EntityType]: ReadonlyArray<EntityRecord> }
): ImportContent => {
  if (content.derived.entities.size === 0) return content
  const bySlug = new Map<string, string>()
  for (const [type, records] of Object.entries(stored))
    for (const r of records) bySlug.set(slugKey(type, r.slug), r.id)
  const entities = content.entities.map((item): Located<ImportEntity> => {
    const key = slugKey(item.value.entity_type, item.value.record.slug)
    const id = content.derived.entities.has(key) ? bySlug.get(key) : undefined
    if (id === undefined || idKey(id) === idKey(item.value.record.id)) return item
    return { ...item, value: { ...item.value, record: { ...item.value.record, id } } as ImportEntity }
  })
  return { ...content, entities }
}

/** Derived scorecard ids replaced by the ids of the stored scorecards of the same entity and version. */
export const matchStoredScorecards = (
  content: ImportContent,
  index: EntityIndex,
  lists: ReadonlyMap<string, ReadonlyArray<Scorecard>>
): ImportContent => {
  if (content.derived.scorecards.size === 0) return content
  const scorecards = content.scorecards.map((item): Located<ImportScorecard> => {
    const s = item.value
    if (!content.derived.scorecards.has(scorecardKey(s.entity_type, s.slug, s.scorecard_version))) return item
    const entity = index.resolve(s.entity_type, s.slug)
    const stored =
      entity === undefined
        ? undefined
        : (lists.get(entity.id) ?? []).find((c) => c.scorecard_version === s.scorecard_version)
    if (stored === undefined || idKey(stored.id) === idKey(s.id)) return item
    return { ...item, value: { ...s, id: stored.id } }
  })
  return { ...content, scorecards }
}
