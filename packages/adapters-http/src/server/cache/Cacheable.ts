/**
 * What a cacheable read declares to the response cache: who asks, its key,
 * what it depends on, how to compute it, and how its answer is encoded: with
 * an endpoint's JSON success codec, or as a page (an HTML answer of the
 * explorer, rendered from the value).
 */
import type { Caller } from "@ratings/domain/model/Caller"
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import type { Effect, Schema as S } from "effect"

/**
 * A value shared by every read of a type under one version and projection
 * class, from which such a read's body can be written without a query (the
 * list snapshot of ListPages.ts).
 */
export interface SnapshotSource<S, E> {
  /** Names the snapshot within the projection class and the versions of the read's topics. */
  readonly key: string
  /** Builds it, with the bytes it holds; a failed build leaves the read to `compute`. */
  readonly build: () => Effect.Effect<{ readonly value: S; readonly bytes: number }, E>
  /** The read's body from it, or undefined when it cannot answer exactly (the read is then computed). */
  readonly body: (snapshot: S) => Uint8Array | undefined
}

/** How a page's value becomes its answer: its body, and the body's content type. */
export interface PageEncoding<A> {
  readonly contentType: string
  /** The body of the value (pure and synchronous: a rendering). */
  readonly render: (value: A) => Uint8Array
}

/** One cacheable read: what identifies it, how to compute it, and what it depends on. */
export type Cacheable<A, E, S = unknown> = CacheableRead<A, E, S> &
  (
    | {
        /** The endpoint's success codec, the one HttpApiBuilder encodes the value with. */
        readonly schema: S.Top
        readonly page?: undefined
      }
    | { readonly schema?: undefined; readonly page: PageEncoding<A> }
  )

/** What every cacheable read declares, whatever its encoding. */
export interface CacheableRead<A, E, S> {
  readonly caller: Caller
  /** The route and its normalised parameters; the projection class is added to it by the cache. */
  readonly key: string
  readonly type: ChangeTopic
  /**
   * Other topics the value shows (every entity of each): an entry is stamped
   * with their versions too and dropped on any change of them (the incident
   * feed names protocols only while they are readable; a chain's quantum
   * reading shows the chain).
   */
  readonly also?: ReadonlyArray<ChangeTopic> | undefined
  /** When the value changes with the clock alone (the quantum stale flag): the instant (epoch ms) it may. */
  readonly expiresAt?: ((value: A) => number | undefined) | undefined
  /** Called only on a miss (or when the read is not cached): a hit builds no query at all. */
  readonly compute: () => Effect.Effect<A, E>
  /** The one entity the value shows; undefined when it depends on every entity of the type (a list). */
  readonly entityOf: (value: A) => string | undefined
  /** Where a miss's body may come from instead of `compute` (its entry then depends on the whole type). */
  readonly snapshot?: SnapshotSource<S, E> | undefined
}

/** The content type of a read's answers. */
export const contentTypeOf = <A, E, S>(read: Cacheable<A, E, S>): string =>
  read.page === undefined ? JsonContentType : read.page.contentType

export const JsonContentType = "application/json"

/** A read's type, then the other topics it shows. */
export const topicsOf = <A, E, S>(read: Cacheable<A, E, S>): ReadonlyArray<ChangeTopic> =>
  read.also === undefined ? [read.type] : [read.type, ...read.also]
