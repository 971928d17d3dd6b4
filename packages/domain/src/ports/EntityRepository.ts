/**
 * Port: the rated entities of the seven types. Lists filter, order and page in
 * the store (the rules are `access/ListFilter.ts`); lookups return hidden records
 * too, because the caller's visibility is decided by the use case.
 */
import { Context, type Effect, type Option } from "effect"
import type { EntityListQuery } from "../access/ListFilter.ts"
import type { EntityRecord, EntityStatus } from "../model/Entity.ts"
import type { EntityType } from "../model/EntityType.ts"
import type { Page, StoreError } from "./StoreError.ts"

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

/** A read with the unreadable entities of the types asked for, one list per type in the order asked. */
export interface WithUnreadable<A> {
  readonly value: A
  readonly unreadable: ReadonlyArray<ReadonlyArray<UnreadableRef>>
}

/** A position in list order: the (slug, id) of the last record of the previous page. */
export interface ListPosition {
  readonly slug: string
  readonly id: string
}

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
     * The entities of a type whose id is one of `ids` (any case; a non-UUID
     * matches nothing) or whose slug is one of `slugs`, hidden records too,
     * each once, in no set order: several lookups in one read (compare, whose
     * identifiers are ids or slugs), where findById and findBySlug would each
     * be a round trip of their own.
     */
    readonly findMany: (
      type: EntityType,
      lookup: { readonly ids: ReadonlyArray<string>; readonly slugs: ReadonlyArray<string> }
    ) => Effect.Effect<ReadonlyArray<EntityRecord>, StoreError>
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
    /**
     * `findById` (`by` "id") or `findBySlug` (`by` "slug") and `unreadable` of
     * each of `hidden`'s types, in that order, read together: what a public
     * detail needs, in one round trip on Postgres (a round trip costs a request
     * more than the rows it reads).
     */
    readonly findWithUnreadable: (
      type: EntityType,
      by: "id" | "slug",
      identifier: string,
      hidden: ReadonlyArray<EntityType>
    ) => Effect.Effect<WithUnreadable<Option.Option<EntityRecord>>, StoreError>
    /** `list` and `unreadable` of each of `hidden`'s types, read together, as `findWithUnreadable`. */
    readonly listWithUnreadable: (
      query: EntityListQuery,
      hidden: ReadonlyArray<EntityType>
    ) => Effect.Effect<WithUnreadable<Page<EntityRecord>>, StoreError>
    /**
     * Writes the entities, each replacing the one of its id; a record's
     * categories are stored lowercased (`withCategoryKeys`, access/ListFilter.ts).
     */
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
>()("@ratings/domain/ports/EntityRepository") {}
