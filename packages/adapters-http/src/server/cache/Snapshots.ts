/**
 * Snapshots (whole encoded lists, ListPages.ts) held beside the cached
 * answers, under the same stamps, invalidated and bounded like them, and
 * built once for every miss that waits on one.
 */
import { Deferred, Effect, Exit } from "effect"
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import type { Cacheable, SnapshotSource } from "./Cacheable.ts"
import { topicsOf } from "./Cacheable.ts"
import { type EntityChange, ProjectionStore } from "./ProjectionStore.ts"

/** Most snapshots held: one per entity type, projection class and version in use is 14. */
const MaxSnapshots = 32

/** A snapshot being built; it fails (with nothing) when the build did. */
interface Building {
  /** The read's type and its `also` topics: a change of any of them forgets the build. */
  readonly topics: ReadonlyArray<ChangeTopic>
  readonly done: Deferred.Deferred<unknown, void>
}

/** Held in place of a snapshot larger than the whole budget: its reads are computed instead of rebuilding it. */
const TooLarge: unique symbol = Symbol("snapshot larger than maxSnapshotBytes")
const TooLargeBytes = 64

export type Snapshots = ReturnType<typeof makeSnapshots>

export const makeSnapshots = (maxBytes: number, ttlMillis: number) => {
  const store = new ProjectionStore<unknown>({ maxEntries: MaxSnapshots, maxBytes, ttlMillis })
  const building = new Map<string, Building>()

  /**
   * The snapshot under `key`: held, or built once for every miss waiting on
   * it and stored unless a change of its topics came meanwhile. Undefined
   * when the build failed or it is too large (the read is then computed).
   */
  const of = <A, E, S>(
    read: Cacheable<A, E, S>,
    source: SnapshotSource<S, E>,
    key: string
  ): Effect.Effect<S | undefined> =>
    Effect.clockWith((clock) => {
      const held = store.get(key, clock.currentTimeMillisUnsafe())
      if (held === TooLarge) return Effect.succeed(undefined)
      if (held !== undefined) return Effect.succeed(held as S)
      const waiting = building.get(key)
      if (waiting !== undefined)
        return Effect.orElseSucceed(Deferred.await(waiting.done) as Effect.Effect<S, void>, () => undefined)
      const flight: Building = { topics: topicsOf(read), done: Deferred.makeUnsafe() }
      building.set(key, flight)
      const ticket = store.ticket()
      return source.build().pipe(
        Effect.map((built) => {
          const fits = built.bytes <= store.limits.maxBytes
          const [value, bytes] = fits ? [built.value, built.bytes] : [TooLarge, TooLargeBytes]
          store.set(
            key,
            value,
            bytes,
            { type: read.type, also: read.also },
            ticket,
            clock.currentTimeMillisUnsafe()
          )
          return built.value
        }),
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (building.get(key) === flight) building.delete(key)
            Deferred.doneUnsafe(
              flight.done,
              Exit.isSuccess(exit) ? Exit.succeed(exit.value) : Exit.fail(undefined)
            )
          })
        ),
        Effect.orElseSucceed(() => undefined)
      )
    })

  return {
    of,
    invalidate: (change: EntityChange) => {
      store.invalidate(change)
      for (const [key, flight] of building)
        if (flight.topics.includes(change.entity_type)) building.delete(key)
    },
    clear: () => {
      store.clear()
      building.clear()
    },
    stats: () => store.stats()
  }
}
