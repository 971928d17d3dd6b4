/**
 * The versions a cached read is checked against: one counter per entity type
 * (and feed, and the API keys) that every write bumps in its own transaction.
 * A read is served from the cache only by an entry computed under the version
 * it read itself, from a query sent after it began; concurrent reads share one
 * such query (`makeVersionReader`).
 */
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import { Context, Effect, Exit, Queue, Semaphore } from "effect"

/**
 * A version per entity type (and per feed: incidents, quantum readiness):
 * two reads of one type's version are equal only if no change of the type
 * committed between them.
 */
export type CacheVersions = { readonly [T in ChangeTopic]?: string } & {
  /** The API keys' version: bumped by every revocation (see KeyMemo.ts). */
  readonly api_keys?: string
}

/**
 * The versions one request has read, from a query sent after it began:
 * authentication reads them (to check the keys it holds in memory) and
 * provides them, and the request's cacheable read uses them instead of
 * waiting for another version query.
 */
export class RequestVersions extends Context.Service<RequestVersions, CacheVersions>()(
  "@ratings/adapters-http/RequestVersions"
) {}

/** Version queries under way at once, at most (each holds a pooled connection for its round trip). */
export const MaxVersionQueries = 2

type Waiter = (versions: CacheVersions | undefined) => void

/**
 * The versions as seen by reads that begin now. Reads wait in a queue; a
 * fiber takes every read waiting, sends one query for them all and answers
 * them with its result: each read gets versions from a query sent after it
 * began (never from one already under way, whose snapshot may predate a
 * commit the read must see). Up to `MaxVersionQueries` are under way at once.
 */
export const makeVersionReader = <R>(read: Effect.Effect<CacheVersions, unknown, R>) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<R>()
    const scope = yield* Effect.scope
    const query = Effect.provideContext(read, context)
    const waiting = yield* Queue.unbounded<Waiter>()
    const slots = yield* Semaphore.make(MaxVersionQueries)
    let reads = 0
    let failures = 0
    const tellAll = (batch: ReadonlyArray<Waiter>, versions: CacheVersions | undefined) => {
      for (const waiter of batch) waiter(versions)
    }
    const answer = (batch: ReadonlyArray<Waiter>) =>
      Effect.exit(query).pipe(
        Effect.onInterrupt(() => Effect.sync(() => tellAll(batch, undefined))),
        Effect.flatMap((exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit)) failures++
            tellAll(batch, Exit.isSuccess(exit) ? exit.value : undefined)
          })
        ),
        Effect.ensuring(slots.release(1))
      )
    // A slot first, then the reads waiting: a batch is taken only when its query can be sent at once.
    const serveBatch = Effect.gen(function* () {
      yield* slots.take(1)
      const batch = yield* Queue.takeAll(waiting)
      reads++
      yield* Effect.forkIn(answer(batch), scope)
    })
    yield* Effect.forkScoped(Effect.forever(serveBatch))
    const currentUnsafe = (waiter: Waiter): void => {
      Queue.offerUnsafe(waiting, waiter)
    }
    return {
      /** Fails (with nothing) when the query failed: the caller then computes its read. */
      current: Effect.callback<CacheVersions, void>((resume) => {
        currentUnsafe((versions) =>
          resume(versions === undefined ? Effect.fail(undefined) : Effect.succeed(versions))
        )
      }),
      currentUnsafe,
      stats: () => ({
        versionReads: reads,
        versionFailures: failures,
        versionWaiting: Queue.sizeUnsafe(waiting)
      })
    }
  })

export type VersionReader = Effect.Success<ReturnType<typeof makeVersionReader>>

/**
 * The versions an entry is stamped with: its type's, then each of its
 * `also` topics' (joined by dots); undefined when one is unknown.
 */
export const versionStamp = (
  current: CacheVersions,
  topics: ReadonlyArray<ChangeTopic>
): string | undefined => {
  let stamp: string | undefined
  for (const topic of topics) {
    const version = current[topic]
    if (version === undefined) return undefined
    stamp = stamp === undefined ? version : `${stamp}.${version}`
  }
  return stamp
}
