/**
 * `Publisher.publishMany`: many acts replayed as `publish` would run them in
 * order, in one transaction, with the store read in bulk. The acts go in runs
 * in which no entity repeats, and each run in chunks: per chunk, one read of
 * the drafts and previous publications, one read of the dependencies'
 * headlines not known yet, each act prepared in memory by the same pure step
 * as `publish`, and one write.
 */
import { Effect, Option, Result } from "effect"
import type { EntityRecord } from "../../model/Entity.ts"
import type { EntityType } from "../../model/EntityType.ts"
import type { Scorecard } from "../../model/Scorecard.ts"
import { repeatFreeRuns, type StoredScorecard } from "../../ports/ScorecardRepository.ts"
import { chainGates, deliveriesForActs, type PublisherPorts } from "./ActSteps.ts"
import {
  entityKey as idKey,
  type Prepared,
  type PublishAct,
  type PublishManyOptions,
  preparePublication
} from "./PublishAct.ts"

/** Acts per chunk of `publishMany`: one bulk read of drafts (with their answers) and one bulk write each. */
const PublishChunk = 2000
/** Per type, above this many slugs to resolve, one read of them all beats one lookup each. */
const SlugLookups = 50
/** Slugs per read of `EntityRepository.findMany`, which binds them as one array. */
const SlugsPerRead = 10_000

const slugKey = (type: EntityType, slug: string) => `${type}:${slug}`

const chunksOf = <A>(xs: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size))
  return out
}

/** Appends `value` to the list of `key`, making the list on first use. */
const pushTo = <K, V>(lists: Map<K, Array<V>>, key: K, value: V) => {
  const list = lists.get(key)
  if (list === undefined) lists.set(key, [value])
  else list.push(value)
}

/** What one call of `publishMany` has learnt so far; the store is not read twice for it. */
interface ManyRun {
  readonly ports: PublisherPorts
  readonly options: PublishManyOptions | undefined
  /** Entities do not change while publishing: each (type, slug) is resolved once (undefined: unknown). */
  readonly bySlug: Map<string, EntityRecord | undefined>
  /** Headline composite of each entity by `type:id`: as stored, then as this call publishes them. */
  readonly composites: Map<string, number | null>
  /** The `unseen` entities whose first act this call has prepared. */
  readonly sighted: Set<string>
  gateOf: ((id: string) => string | null | undefined) | undefined
  done: number
  deliveryCount: number
}

const entityOf = (run: ManyRun, type: EntityType, slug: string) => run.bySlug.get(slugKey(type, slug))

/**
 * Resolves the (type, slug) pairs not resolved yet: from the caller's records
 * (`PublishManyOptions.entities`), else from the store, one lookup each or,
 * for a type with many, one read of just those slugs per chunk of them.
 */
const resolveSlugs = Effect.fnUntraced(function* (
  run: ManyRun,
  wanted: ReadonlyArray<readonly [EntityType, string]>
) {
  const { bySlug } = run
  const given = run.options?.entities
  const missing = new Map<EntityType, Set<string>>()
  for (const [type, slug] of wanted) {
    const key = slugKey(type, slug)
    if (bySlug.has(key)) continue
    const record = given?.(type, slug)
    if (record !== undefined) {
      bySlug.set(key, record)
      continue
    }
    const slugs = missing.get(type)
    if (slugs === undefined) missing.set(type, new Set([slug]))
    else slugs.add(slug)
  }
  for (const [type, slugs] of missing) {
    if (slugs.size > SlugLookups) {
      for (const part of chunksOf([...slugs], SlugsPerRead)) {
        for (const slug of part) bySlug.set(slugKey(type, slug), undefined)
        for (const record of yield* run.ports.entities.findMany(type, { ids: [], slugs: part }))
          bySlug.set(slugKey(type, record.slug), record)
      }
    } else {
      for (const slug of slugs)
        bySlug.set(
          slugKey(type, slug),
          Option.getOrUndefined(yield* run.ports.entities.findBySlug(type, slug))
        )
    }
  }
})

/** The latest draft and the latest publication of each found entity of a chunk, by `type:id`. */
const readChunkScorecards = Effect.fnUntraced(function* (
  run: ManyRun,
  chunk: ReadonlyArray<PublishAct>,
  found: ReadonlyArray<EntityRecord | undefined>
) {
  const present = new Map<EntityType, Array<string>>()
  chunk.forEach((a, i) => {
    const id = found[i]?.id
    if (id !== undefined) pushTo(present, a.request.entity_type, id)
  })
  const drafts = new Map<string, StoredScorecard>()
  const previous = new Map<string, Scorecard>()
  for (const [type, entityIds] of present) {
    for (const s of yield* run.ports.scorecards.latestOf(type, entityIds, "draft", run.options?.savedAnswers))
      drafts.set(idKey(type, s.entity_id), s)
    for (const s of (yield* run.ports.scorecards.latestPublishedOf(type, entityIds)).values())
      previous.set(idKey(type, s.entity_id), s)
  }
  return { drafts, previous }
})

/** Resolves the drafts' dependencies and reads the headlines of those not known yet; the chain gates once. */
const readDependencies = Effect.fnUntraced(function* (
  run: ManyRun,
  chunk: ReadonlyArray<PublishAct>,
  drafts: ReadonlyMap<string, StoredScorecard>
) {
  const deps = [...drafts.values()].flatMap((d) => d.dependencies)
  yield* resolveSlugs(
    run,
    deps.map((d) => [d.entity_type, d.slug] as const)
  )
  const unknown = new Map<EntityType, Array<string>>()
  for (const d of deps) {
    const e = entityOf(run, d.entity_type, d.slug)
    if (e === undefined || run.composites.has(idKey(d.entity_type, e.id))) continue
    run.composites.set(idKey(d.entity_type, e.id), null)
    pushTo(unknown, d.entity_type, e.id)
  }
  for (const [type, entityIds] of unknown)
    for (const s of (yield* run.ports.scorecards.latestPublishedOf(type, entityIds)).values())
      run.composites.set(idKey(type, s.entity_id), s.composite_score)
  if (run.gateOf === undefined && chunk.some((a) => a.request.entity_type === "chain"))
    run.gateOf = yield* chainGates(run.ports)
})

/**
 * Each act of a chunk prepared in order, as `publish` would: a dependency
 * published by an earlier act counts, and the first act on an `unseen`
 * entity is seen from hidden. The first act that fails fails the chunk.
 */
const prepareChunk = Effect.fnUntraced(function* (
  run: ManyRun,
  chunk: ReadonlyArray<PublishAct>,
  found: ReadonlyArray<EntityRecord | undefined>,
  drafts: ReadonlyMap<string, StoredScorecard>,
  previous: ReadonlyMap<string, Scorecard>
) {
  const prepared: Array<Prepared & { readonly at: number }> = []
  for (const [i, act] of chunk.entries()) {
    const type = act.request.entity_type
    const entity = found[i]
    const draft = entity === undefined ? undefined : drafts.get(idKey(type, entity.id))
    const key = entity === undefined ? undefined : idKey(type, entity.id)
    const firstSight = key !== undefined && run.options?.unseen?.has(key) === true && !run.sighted.has(key)
    if (firstSight) run.sighted.add(key)
    const result = preparePublication(
      {
        request: act.request,
        entity,
        readableBefore: firstSight ? false : undefined,
        draft,
        previous: entity === undefined ? undefined : previous.get(idKey(type, entity.id)),
        dependencies: (draft?.dependencies ?? []).map((d) => {
          const e = entityOf(run, d.entity_type, d.slug)
          return {
            ...d,
            composite_score: e === undefined ? null : (run.composites.get(idKey(d.entity_type, e.id)) ?? null)
          }
        }),
        gateOf: type === "chain" ? run.gateOf : undefined,
        at: act.at
      },
      run.ports.scoring.scoreSync,
      run.ports.projection.isPubliclyReadable
    )
    if (Result.isFailure(result)) return yield* result.failure
    const { record } = result.success
    run.composites.set(idKey(type, record.entity_id), record.scorecard.composite_score)
    prepared.push({ ...result.success, at: act.at })
  }
  return prepared
})

/** One chunk of a run: read in bulk, prepared in memory, written in one call with its deliveries. */
const runChunk = Effect.fnUntraced(function* (run: ManyRun, chunk: ReadonlyArray<PublishAct>) {
  const found = chunk.map((a) => entityOf(run, a.request.entity_type, a.request.slug))
  const { drafts, previous } = yield* readChunkScorecards(run, chunk, found)
  yield* readDependencies(run, chunk, drafts)
  const prepared = yield* prepareChunk(run, chunk, found, drafts, previous)
  const deliveries = yield* deliveriesForActs(run.ports, prepared)
  yield* run.ports.scorecards.publishMany(prepared.map((p) => p.record))
  if (deliveries.length > 0) yield* run.ports.outbox.enqueue(deliveries)
  run.done += chunk.length
  run.deliveryCount += deliveries.length
  run.options?.onProgress?.(run.done)
})

/** `Publisher.publishMany`. */
export const publishMany = (ports: PublisherPorts) =>
  Effect.fn("Publisher.publishMany")(function* (
    acts: ReadonlyArray<PublishAct>,
    options?: PublishManyOptions
  ) {
    const run: ManyRun = {
      ports,
      options,
      bySlug: new Map(),
      composites: new Map(),
      sighted: new Set(),
      gateOf: undefined,
      done: 0,
      deliveryCount: 0
    }
    yield* ports.tx.run(
      Effect.gen(function* () {
        yield* resolveSlugs(
          run,
          acts.map((a) => [a.request.entity_type, a.request.slug] as const)
        )
        // An act whose entity is unknown keys by its slug: it fails when its turn comes.
        const keyOf = (a: PublishAct) => {
          const e = entityOf(run, a.request.entity_type, a.request.slug)
          return e === undefined
            ? slugKey(a.request.entity_type, a.request.slug)
            : idKey(a.request.entity_type, e.id)
        }
        for (const runOfActs of repeatFreeRuns(acts, keyOf))
          for (const chunk of chunksOf(runOfActs, PublishChunk)) yield* runChunk(run, chunk)
      })
    )
    return { published: run.done, deliveries: run.deliveryCount }
  })
