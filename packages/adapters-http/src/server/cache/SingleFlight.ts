/**
 * Misses of one key share one computation: later callers wait for the first
 * one's answer instead of running the same query (a burst after an
 * invalidation costs one query). A change of the read's topics forgets the
 * computation, so a read that begins after a change never waits for one
 * begun before it; a failure is not shared (each waiter computes its own).
 */
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import { Deferred, Effect, Exit } from "effect"
import { type CachedAnswer, cachedAnswer } from "./Answers.ts"
import { type Cacheable, contentTypeOf, topicsOf } from "./Cacheable.ts"
import { encoderOf } from "./Encoding.ts"
import type { EntityChange, ProjectionStore } from "./ProjectionStore.ts"
import type { Snapshots } from "./Snapshots.ts"

/** Bytes an entry is charged beyond its body and key: the answer, its heads and the indexes. */
const EntryOverhead = 256

/** A miss under way; it fails (with nothing) when its computation did. */
interface Flight {
  readonly topics: ReadonlyArray<ChangeTopic>
  readonly done: Deferred.Deferred<CachedAnswer, void>
}

/** What a miss stores: its body, and what the entry depends on beyond its topics. */
interface MissBody {
  readonly body: Uint8Array
  readonly entityId: string | undefined
  readonly expiresAt: number | undefined
}

export const makeMisses = (store: ProjectionStore<CachedAnswer>, snapshots: Snapshots) => {
  const flights = new Map<string, Flight>()

  /** The body of a miss: from the read's snapshot when it can answer (then type-wide), else computed. */
  const bodyOf = <A, E, S>(read: Cacheable<A, E, S>, prefix: string): Effect.Effect<MissBody, E> => {
    const encode = (value: A): Effect.Effect<Uint8Array> => {
      const page = read.page
      return page === undefined ? encoderOf(read.schema)(value) : Effect.sync(() => page.render(value))
    }
    const computed = Effect.flatMap(read.compute(), (value) =>
      Effect.map(encode(value), (body) => ({
        body,
        entityId: read.entityOf(value),
        expiresAt: read.expiresAt?.(value)
      }))
    )
    const source = read.snapshot
    if (source === undefined) return computed
    return Effect.flatMap(snapshots.of(read, source, `${prefix}|${source.key}`), (snapshot) => {
      const body = snapshot === undefined ? undefined : source.body(snapshot)
      return body === undefined
        ? computed
        : Effect.succeed({ body, entityId: undefined, expiresAt: undefined })
    })
  }

  const computeAndStore = <A, E, S>(read: Cacheable<A, E, S>, prefix: string, key: string) =>
    Effect.clockWith((clock) => {
      const ticket = store.ticket()
      return Effect.map(bodyOf(read, prefix), ({ body, entityId, expiresAt }) => {
        const answer = cachedAnswer(body, contentTypeOf(read))
        const bytes = body.byteLength + key.length * 2 + EntryOverhead
        const dependency = { type: read.type, entityId, also: read.also, expiresAt }
        store.set(key, answer, bytes, dependency, ticket, clock.currentTimeMillisUnsafe())
        return answer
      })
    })

  const lead = <A, E, S>(read: Cacheable<A, E, S>, prefix: string, key: string) => {
    const flight: Flight = { topics: topicsOf(read), done: Deferred.makeUnsafe() }
    flights.set(key, flight)
    return computeAndStore(read, prefix, key).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          if (flights.get(key) === flight) flights.delete(key)
          Deferred.doneUnsafe(
            flight.done,
            Exit.isSuccess(exit) ? Exit.succeed(exit.value) : Exit.fail(undefined)
          )
        })
      )
    )
  }

  return {
    /** The held answer of the read under `prefix` (projection class and stamp), or the shared computation of it. */
    serve: <A, E, S>(read: Cacheable<A, E, S>, prefix: string): Effect.Effect<CachedAnswer, E> =>
      Effect.clockWith((clock) => {
        const key = `${prefix}|${read.key}`
        const hit = store.get(key, clock.currentTimeMillisUnsafe())
        if (hit !== undefined) return Effect.succeed(hit)
        const flight = flights.get(key)
        if (flight === undefined) return lead(read, prefix, key)
        return Effect.catch(Deferred.await(flight.done), () => computeAndStore(read, prefix, key))
      }),
    forget: (change: EntityChange) => {
      for (const [key, flight] of flights) if (flight.topics.includes(change.entity_type)) flights.delete(key)
    },
    clear: () => flights.clear()
  }
}
