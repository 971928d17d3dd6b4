/** The in-memory `EntityRepository` of tests and tools; the contract is the port's (`../EntityRepository.ts`). */
import { Effect, Layer, Option, Ref } from "effect"
import {
  compareListOrder,
  type EntityListQuery,
  runListQuery,
  withCategoryKeys
} from "../../access/ListFilter.ts"
import { isListed, PublicListFlags } from "../../access/Projection.ts"
import { isReadable } from "../../access/Readable.ts"
import type { EntityRecord } from "../../model/Entity.ts"
import type { EntityType } from "../../model/EntityType.ts"
import { StoreError } from "../StoreError.ts"
import { EntityRepository, type ListPosition, type StoredEntity } from "../EntityRepository.ts"

const isAfter = (r: EntityRecord, p: ListPosition): boolean =>
  r.slug > p.slug || (r.slug === p.slug && r.id.toLowerCase() > p.id.toLowerCase())
/** What `published` lists: what a public list shows (a framework vault included in none). */
const isListedPublished = (r: EntityRecord): boolean => isListed(r, PublicListFlags)
/** A record as the store holds it: categories lowercased (access/ListFilter.ts), as Postgres holds them. */
const storedOf = (e: StoredEntity): StoredEntity => {
  const record = withCategoryKeys(e.record)
  return record === e.record ? e : { ...e, record }
}

const layer = (seed: ReadonlyArray<StoredEntity> = []) =>
  Layer.effect(
    EntityRepository,
    Effect.gen(function* () {
      const key = (type: EntityType, id: string) => `${type}:${id.toLowerCase()}`
      const store = yield* Ref.make(
        new Map<string, StoredEntity>(seed.map((e) => [key(e.entity_type, e.record.id), storedOf(e)]))
      )
      const ofType = (type: EntityType) =>
        Ref.get(store).pipe(
          Effect.map((m) => [...m.values()].filter((e) => e.entity_type === type).map((e) => e.record))
        )
      const list = (query: EntityListQuery) =>
        Effect.map(ofType(query.entity_type), (records) => runListQuery(records, query))
      const findById = (type: EntityType, id: string) =>
        Effect.map(Ref.get(store), (m) => Option.fromNullishOr(m.get(key(type, id))?.record))
      const findBySlug = (type: EntityType, slug: string) =>
        Effect.map(ofType(type), (records) => Option.fromNullishOr(records.find((r) => r.slug === slug)))
      const unreadable = (type: EntityType) =>
        Effect.map(ofType(type), (records) =>
          records
            .filter((r) => !isReadable(r))
            .sort(compareListOrder)
            .map(({ id, slug, status, is_private, is_active }) => ({
              id,
              slug,
              status,
              is_private,
              is_active
            }))
        )
      // The reads "together" are the reads in turn: a memory store has no round trip to save.
      const withUnreadable = <A>(read: Effect.Effect<A>, hidden: ReadonlyArray<EntityType>) =>
        Effect.all({ value: read, unreadable: Effect.forEach(hidden, unreadable) })
      return EntityRepository.of({
        list,
        findById,
        findBySlug,
        findWithUnreadable: (type, by, identifier, hidden) =>
          withUnreadable(by === "id" ? findById(type, identifier) : findBySlug(type, identifier), hidden),
        listWithUnreadable: (query, hidden) => withUnreadable(list(query), hidden),
        findMany: (type, lookup) =>
          Effect.map(ofType(type), (records) => {
            const ids = new Set(lookup.ids.map((id) => id.toLowerCase()))
            const slugs = new Set(lookup.slugs)
            return records.filter((r) => ids.has(r.id.toLowerCase()) || slugs.has(r.slug))
          }),
        published: (type, limit, after) =>
          Effect.map(ofType(type), (records) =>
            records
              .filter((r) => isListedPublished(r) && (after === undefined || isAfter(r, after)))
              .sort(compareListOrder)
              .slice(0, limit)
          ),
        countPublished: (type) =>
          Effect.map(ofType(type), (records) => records.filter(isListedPublished).length),
        all: ofType,
        unreadable,
        setStatus: (type, id, status, updated_at) =>
          Effect.flatMap(
            Ref.modify(store, (m) => {
              const found = m.get(key(type, id))
              if (found === undefined) return [false, m] as const
              const next = new Map(m)
              next.set(key(type, id), { ...found, record: { ...found.record, status, updated_at } })
              return [true, next] as const
            }),
            (done) =>
              done ? Effect.void : Effect.fail(new StoreError({ message: `set status: no ${type} ${id}` }))
          ),
        upsert: (entities) =>
          Ref.update(store, (m) => {
            const next = new Map(m)
            for (const e of entities) next.set(key(e.entity_type, e.record.id), storedOf(e))
            return next
          })
      })
    })
  )

export const EntityRepositoryMemory = { layer }
