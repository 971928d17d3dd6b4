/**
 * Port: the rated entities of the seven types. Lists filter, order and page in
 * the store (the rules are `access/ListFilter.ts`); lookups return hidden records
 * too, because the caller's visibility is decided by the use case.
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import { compareListOrder, type EntityListQuery, runListQuery } from "../access/ListFilter.ts"
import { isPubliclyReadable } from "../access/Projection.ts"
import type { EntityRecord, EntityStatus } from "../model/Entity.ts"
import type { EntityType } from "../model/EntityType.ts"
import { type Page, StoreError } from "./StoreError.ts"

export interface StoredEntity {
  readonly entity_type: EntityType
  readonly record: EntityRecord
  /** The entity's own domain weights when it is not scored on its type's defaults (rule 5). */
  readonly domain_weights?: { readonly [domain: string]: number } | undefined
}

/** An entity the public cannot read (not published, private or inactive), as projections need it. */
export interface UnreadableRef {
  readonly id: string
  readonly slug: string
  readonly status: string
  readonly is_private: boolean
  readonly is_active: boolean
}

/** A position in list order: the (slug, id) of the last record of the previous page. */
export interface ListPosition {
  readonly slug: string
  readonly id: string
}

const isFramework = (r: EntityRecord): boolean => "is_framework" in r && r.is_framework === true
const isAfter = (r: EntityRecord, p: ListPosition): boolean =>
  r.slug > p.slug || (r.slug === p.slug && r.id.toLowerCase() > p.id.toLowerCase())
const isListedPublished = (r: EntityRecord): boolean =>
  r.status === "published" && !r.is_private && r.is_active && !isFramework(r)

export class EntityRepository extends Context.Service<
  EntityRepository,
  {
    readonly list: (query: EntityListQuery) => Effect.Effect<Page<EntityRecord>, StoreError>
    readonly findById: (
      type: EntityType,
      id: string
    ) => Effect.Effect<Option.Option<EntityRecord>, StoreError>
    readonly findBySlug: (
      type: EntityType,
      slug: string
    ) => Effect.Effect<Option.Option<EntityRecord>, StoreError>
    /**
     * Published, public, active entities of a type in list order (slug, id), at most
     * `limit`: what exports and compare may show (spec part 3: only published entities).
     * With `after`, the page starts just after that (slug, id) position (keyset paging,
     * so a streamed export reads one page at a time whatever its size).
     */
    readonly published: (
      type: EntityType,
      limit: number,
      after?: ListPosition | undefined
    ) => Effect.Effect<ReadonlyArray<EntityRecord>, StoreError>
    /** How many entities `published` would list, all pages together. */
    readonly countPublished: (type: EntityType) => Effect.Effect<number, StoreError>
    /** Every entity of a type whatever its status or visibility (matching, directories). */
    readonly all: (type: EntityType) => Effect.Effect<ReadonlyArray<EntityRecord>, StoreError>
    /**
     * The entities of a type that the public cannot read (`isPubliclyReadable`
     * false), in list order: the chains whose briefs public records leave out,
     * the organisations a bridge may not name (docs/adr/0003-access-and-lists.md).
     */
    readonly unreadable: (type: EntityType) => Effect.Effect<ReadonlyArray<UnreadableRef>, StoreError>
    readonly upsert: (entities: ReadonlyArray<StoredEntity>) => Effect.Effect<void, StoreError>
    /**
     * Moves one entity to `status` and sets its updated_at, leaving the rest of
     * its record and its domain weights as stored. An unknown id is a StoreError.
     */
    readonly setStatus: (
      type: EntityType,
      id: string,
      status: EntityStatus,
      updatedAt: string
    ) => Effect.Effect<void, StoreError>
  }
>()("@ratings/domain/ports/EntityRepository") {
  static readonly layerMemory = (seed: ReadonlyArray<StoredEntity> = []) =>
    Layer.effect(
      EntityRepository,
      Effect.gen(function* () {
        const key = (type: EntityType, id: string) => `${type}:${id.toLowerCase()}`
        const store = yield* Ref.make(
          new Map<string, StoredEntity>(seed.map((e) => [key(e.entity_type, e.record.id), e]))
        )
        const ofType = (type: EntityType) =>
          Ref.get(store).pipe(
            Effect.map((m) => [...m.values()].filter((e) => e.entity_type === type).map((e) => e.record))
          )
        return EntityRepository.of({
          list: (query) => Effect.map(ofType(query.entity_type), (records) => runListQuery(records, query)),
          findById: (type, id) =>
            Effect.map(Ref.get(store), (m) => Option.fromNullishOr(m.get(key(type, id))?.record)),
          findBySlug: (type, slug) =>
            Effect.map(ofType(type), (records) => Option.fromNullishOr(records.find((r) => r.slug === slug))),
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
          unreadable: (type) =>
            Effect.map(ofType(type), (records) =>
              records
                .filter((r) => !isPubliclyReadable(r))
                .sort(compareListOrder)
                .map(({ id, slug, status, is_private, is_active }) => ({
                  id,
                  slug,
                  status,
                  is_private,
                  is_active
                }))
            ),
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
              for (const e of entities) next.set(key(e.entity_type, e.record.id), e)
              return next
            })
        })
      })
    )
}
