/**
 * Use cases for post-quantum readiness: refresh the snapshot from the
 * third-party source, and serve the league table and single-chain readings
 * (spec part 4 "Quantum readiness"). Nothing here can reach a scorecard: the
 * data is shown beside ratings and never feeds grades.
 *
 * Reads match the snapshot's rows against the chain directory again, so a
 * chain created or renamed since the last fetch is matched at once (rule 1).
 * Scheduling refreshes is the app's job; a read never waits on the upstream.
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Layer, Option, Schema, Semaphore } from "effect"
import type { QuantumChainReading, QuantumLeagueTable, QuantumUnavailable } from "../model/Quantum.ts"
import { ChainDirectory } from "../ports/ChainDirectory.ts"
import { QuantumSnapshotStore } from "../ports/QuantumSnapshotStore.ts"
import { QuantumSource } from "../ports/QuantumSource.ts"
import type { StoreError } from "../ports/StoreError.ts"
import {
  chainReading,
  clockChangesAt,
  leagueTable,
  type ReadinessState
} from "../quantum/QuantumReadiness.ts"
import { MaxQuantumRows, matchRows, readRows } from "../quantum/QuantumRows.ts"
import {
  DefaultSnapshotTtl,
  makeSnapshot,
  type QuantumRefreshOutcome,
  type QuantumSnapshot,
  toIso
} from "../quantum/QuantumSnapshot.ts"
import { ChainDirectoryMemory } from "../ports/memory/ChainDirectoryMemory.ts"
import { QuantumSnapshotStoreMemory } from "../ports/memory/QuantumSnapshotStoreMemory.ts"
import { QuantumSourceMemory } from "../ports/memory/QuantumSourceMemory.ts"

export interface QuantumServiceOptions {
  /** How long a fetched snapshot stays current; 24 hours unless set. */
  readonly ttl?: Duration.Input | undefined
}

export interface RefreshResult {
  readonly outcome: QuantumRefreshOutcome
  /** The snapshot this refresh saved; absent when it failed and the previous one was kept. */
  readonly snapshot?: QuantumSnapshot
}

/** A refresh that read nothing usable: saving it would replace a good table with an empty one. */
export class QuantumNoReadableRows extends Schema.TaggedError<QuantumNoReadableRows>()(
  "QuantumNoReadableRows",
  {
    message: Schema.String
  }
) {}

/**
 * A dataset of more rows than a league table of chains holds: refused whole,
 * since any part of it kept would be an arbitrary cut served as the table.
 */
export class QuantumTooManyRows extends Schema.TaggedError<QuantumTooManyRows>()("QuantumTooManyRows", {
  message: Schema.String
}) {}

const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (
    typeof error === "object" &&
    error !== null &&
    "message" in error &&
    typeof error.message === "string"
  ) {
    return "_tag" in error && typeof error._tag === "string"
      ? `${error._tag}: ${error.message}`
      : error.message
  }
  return String(error)
}

/** What the quantum use cases work with, read once when the layer is built. */
interface QuantumPorts {
  readonly source: QuantumSource["Service"]
  readonly store: QuantumSnapshotStore["Service"]
  readonly directory: ChainDirectory["Service"]
}

/** Fetches and reads the dataset, matches it against the chain directory, and saves the snapshot. */
const fetchAndSave = (ports: QuantumPorts, ttlMillis: number) =>
  Effect.gen(function* () {
    const { source, store, directory } = ports
    const raw = yield* source.fetch
    if (raw.length > MaxQuantumRows)
      return yield* Effect.fail(
        new QuantumTooManyRows({
          message: `the dataset has ${raw.length} rows, more than the ${MaxQuantumRows} accepted; refused whole`
        })
      )
    const read = readRows(raw)
    if (read.rows.length === 0)
      return yield* Effect.fail(
        new QuantumNoReadableRows({ message: `no readable rows (${read.rows_skipped} skipped)` })
      )
    const chains = yield* directory.all
    const now = yield* Clock.currentTimeMillis
    const snapshot = makeSnapshot(
      { rows: matchRows(read.rows, chains), rows_skipped: read.rows_skipped },
      { now, ttlMillis, sample: source.sample }
    )
    yield* store.save(snapshot)
    return snapshot
  })

/** One refresh: `fetchAndSave`, its outcome recorded (a failure keeps the previous snapshot); never fails. */
const refresh = (ports: QuantumPorts, ttlMillis: number) => {
  const attempt = fetchAndSave(ports, ttlMillis)
  return Effect.gen(function* () {
    const exit = yield* Effect.exit(attempt)
    if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
    const at = toIso(yield* Clock.currentTimeMillis)
    const result: RefreshResult = Exit.isSuccess(exit)
      ? { outcome: { at, ok: true }, snapshot: exit.value }
      : { outcome: { at, ok: false, error: describeFailure(exit.cause) } }
    if (!result.outcome.ok) yield* Effect.logWarning("quantum readiness refresh failed", result.outcome.error)
    yield* ports.store
      .recordOutcome(result.outcome)
      .pipe(
        Effect.catch((error) =>
          Effect.logWarning("quantum readiness refresh outcome not recorded", error.message)
        )
      )
    return result
  })
}

/** The latest snapshot, matched against the chains as they are now, and the time. */
const currentState = (ports: QuantumPorts) =>
  Effect.gen(function* () {
    const chains = yield* ports.directory.all
    const snapshot = Option.getOrUndefined(yield* ports.store.latest)
    const lastOutcome = Option.getOrUndefined(yield* ports.store.lastOutcome)
    const now = yield* Clock.currentTimeMillis
    const state: ReadinessState = {
      snapshot: snapshot === undefined ? undefined : { ...snapshot, rows: matchRows(snapshot.rows, chains) },
      lastOutcome,
      now
    }
    return { state, chains }
  })

/**
 * A payload and the instant its clock-dependent part (the stale flag) may
 * change: a cache serves it no later than `changesAt` (undefined: only a new
 * snapshot, outcome or chain changes it).
 */
export interface Timed<A> {
  readonly value: A
  readonly changesAt: number | undefined
}

export class QuantumService extends Context.Service<
  QuantumService,
  {
    /**
     * Fetches, reads, matches and saves a new snapshot. On any failure it
     * records the failure and keeps the previous snapshot; it never fails.
     */
    readonly refresh: Effect.Effect<RefreshResult>
    readonly leagueTable: Effect.Effect<QuantumLeagueTable | QuantumUnavailable, StoreError>
    /** One chain by service chain slug; unknown and unassessed chains are `available: false`, not errors. */
    readonly chain: (slug: string) => Effect.Effect<QuantumChainReading | QuantumUnavailable, StoreError>
    /** `leagueTable` with the instant it may change with the clock alone (for the response cache). */
    readonly leagueTableTimed: Effect.Effect<Timed<QuantumLeagueTable | QuantumUnavailable>, StoreError>
    /** `chain` with the instant it may change with the clock alone (for the response cache). */
    readonly chainTimed: (
      slug: string
    ) => Effect.Effect<Timed<QuantumChainReading | QuantumUnavailable>, StoreError>
  }
>()("@ratings/domain/services/QuantumService") {
  static layerWith(options: QuantumServiceOptions = {}) {
    return Layer.effect(
      QuantumService,
      Effect.gen(function* () {
        const ports: QuantumPorts = {
          source: yield* QuantumSource,
          store: yield* QuantumSnapshotStore,
          directory: yield* ChainDirectory
        }
        const ttlMillis = Duration.toMillis(options.ttl ?? DefaultSnapshotTtl)
        if (!Number.isFinite(ttlMillis) || ttlMillis < 0) {
          return yield* Effect.die(
            new Error(`quantum snapshot TTL must be finite and not negative: ${ttlMillis}`)
          )
        }
        // Two refreshes in one process interleaving could record an outcome
        // that does not belong to the snapshot saved last.
        const refreshLock = yield* Semaphore.make(1)

        const readState = currentState(ports)
        const leagueTableTimed = readState.pipe(
          Effect.map(({ state }) => ({ value: leagueTable(state), changesAt: clockChangesAt(state) })),
          Effect.withSpan("QuantumService.leagueTable")
        )
        const chainTimed = Effect.fn("QuantumService.chain")(function* (slug: string) {
          const { state, chains } = yield* readState
          return {
            value: chainReading(state, { slug, known: chains.some((c) => c.slug === slug) }),
            changesAt: clockChangesAt(state)
          }
        })
        return QuantumService.of({
          refresh: refresh(ports, ttlMillis).pipe(
            refreshLock.withPermit,
            Effect.withSpan("QuantumService.refresh")
          ),
          leagueTable: Effect.map(leagueTableTimed, (timed) => timed.value),
          chain: (slug) => Effect.map(chainTimed(slug), (timed) => timed.value),
          leagueTableTimed,
          chainTimed
        })
      })
    )
  }

  static readonly layer = QuantumService.layerWith()

  /** The service over in-memory ports, with the ports and their controls exposed to tests. */
  static layerTest(options: QuantumServiceOptions = {}) {
    return QuantumService.layerWith(options).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          QuantumSourceMemory.layer,
          QuantumSnapshotStoreMemory.layer,
          ChainDirectoryMemory.layer
        )
      )
    )
  }
}
