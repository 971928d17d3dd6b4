/**
 * The scale generator behind `ratings demo generate --entities N --seed S`: a
 * deterministic, large dataset in the import format for benchmarks. The same
 * seed gives byte-identical files. Every entity gets a full draft scorecard
 * (an answer to every question of its type) and, when published, a publish
 * act; the rubric is the demo rubric.
 *
 * Each entity is a pure function of (seed, type, index), so an entity can name
 * another (a protocol's chains, a vault's curator) by recomputing that one's
 * identity instead of keeping the dataset in memory. Files are produced one at
 * a time, at most `entitiesPerFile` entities each, and written as they come.
 */
import {
  type ImportEntity,
  type ImportFile,
  ImportFormatVersion,
  type ImportPublication,
  type ImportScorecard
} from "@ratings/domain/import/ImportFile"
import type { Answer } from "@ratings/domain/model/Answer"
import type { ChainBrief } from "@ratings/domain/model/ChainBrief"
import type { EntityStatus } from "@ratings/domain/model/Entity"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { DomainWeightMap } from "@ratings/domain/scoring/Composite"
import { defaultDomainWeights } from "@ratings/domain/scoring/ScoreEntity"
import { Effect, FileSystem, Path, type PlatformError, Schema } from "effect"
import { MaxScore, QuestionsByType, RubricQuestions } from "./rubric/Rubric.ts"
import * as V from "./ScaleVocabulary.ts"
import { type SeededRandom, seededRandom } from "./SeededRandom.ts"

export interface GenerateOptions {
  readonly entities: number
  readonly seed: number | string
  /** Most entities per file (default 1,000): bounds memory and file size at any scale. */
  readonly entitiesPerFile?: number
}

export interface GeneratedFile {
  readonly name: string
  readonly content: ImportFile
  readonly entities: number
}

export const DefaultEntitiesPerFile = 1000

/** Entities of each type for a dataset of `total`: shares by largest remainder, each type at least once from 7 up. */
export const typeCounts = (total: number): ReadonlyArray<readonly [EntityType, number]> => {
  const raw = V.TypeShares.map(([t, share]) => ({ t, exact: share * total, n: Math.floor(share * total) }))
  let left = total - raw.reduce((s, r) => s + r.n, 0)
  const byRemainder = [...raw].sort((a, b) => b.exact - b.n - (a.exact - a.n))
  for (let i = 0; left > 0; i = (i + 1) % byRemainder.length, left--) byRemainder[i]!.n++
  if (total >= raw.length) {
    const protocols = raw.find((r) => r.t === "protocol")!
    for (const r of raw) {
      if (r.n === 0) {
        r.n = 1
        protocols.n--
      }
    }
  }
  return raw.map((r) => [r.t, r.n] as const)
}

interface Identity {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly rng: SeededRandom
}

const slugify = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")

/** Id, name and slug first, from a generator seeded by (seed, type, index): recomputable by reference. */
const identityOf = (seed: string, type: EntityType, index: number): Identity => {
  const rng = seededRandom(`${seed}|${type}|${index}`)
  const id = rng.uuid()
  const stem = rng.pick(V.NameStems)
  const tail = rng.pick(V.NameTails)
  const name = `${stem}${tail} ${rng.pick(V.TypeWords[type])}`
  return { id, name, slug: `${slugify(name)}-${index.toString(36)}`, rng }
}

const DayMs = 86_400_000
const iso = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z")
const CreatedFrom = Date.UTC(2025, 0, 1)

/**
 * Publication window of each type (first day, length in days). The windows do
 * not overlap and follow the dependency order: chains and oracles are rated
 * before the protocols on them, protocols before the vaults built on them.
 */
const PublishWindow: { readonly [T in EntityType]: readonly [number, number] } = {
  chain: [Date.UTC(2026, 0, 5), 14],
  oracle: [Date.UTC(2026, 0, 20), 14],
  organisation: [Date.UTC(2026, 1, 3), 14],
  token: [Date.UTC(2026, 1, 17), 14],
  protocol: [Date.UTC(2026, 2, 3), 90],
  vault: [Date.UTC(2026, 5, 2), 30],
  bridge: [Date.UTC(2026, 6, 6), 30]
}

const publishedAtOf = (type: EntityType, index: number): number => {
  const [from, days] = PublishWindow[type]
  return from + (index % days) * DayMs + (index % 36_000) * 1000
}

const statusOf = (rng: SeededRandom): EntityStatus => {
  const x = rng.next()
  return x < 0.88 ? "published" : x < 0.91 ? "approved" : x < 0.95 ? "scoring" : "draft"
}

const weightCache = new Map<string, DomainWeightMap>()
const weightsFor = (type: EntityType, categories: ReadonlyArray<string>): DomainWeightMap => {
  const key = `${type}|${categories.join(",")}`
  let w = weightCache.get(key)
  if (w === undefined) {
    w = defaultDomainWeights(type, categories)
    weightCache.set(key, w)
  }
  return w
}

const answersFor = (type: EntityType, weights: DomainWeightMap, rng: SeededRandom): ReadonlyArray<Answer> => {
  const quality = 0.45 + rng.next() * 0.5
  const bias = new Map<string, number>()
  return QuestionsByType[type].map((q): Answer => {
    const base = { id: rng.uuid(), question_id: q.id, domain: q.domain }
    const tail = { max_score: q.max_score, weight: q.weight }
    if (weights[q.domain] === undefined) {
      return { ...base, score: null, ...tail, confidence: "not_applicable", response: null, rationale: null }
    }
    if (rng.chance(0.02))
      return { ...base, score: null, ...tail, confidence: null, response: null, rationale: null }
    let b = bias.get(q.domain)
    if (b === undefined) {
      b = (rng.next() - 0.5) * 0.2
      bias.set(q.domain, b)
    }
    const score = Math.min(
      MaxScore,
      Math.max(0, Math.round(MaxScore * (quality + b + (rng.next() - 0.5) * 0.5)))
    )
    const confidence = rng.chance(0.6) ? "high" : rng.chance(0.75) ? "medium" : "low"
    return { ...base, score, ...tail, confidence, response: `Level ${score} of ${MaxScore}`, rationale: null }
  })
}

interface Generated {
  readonly entity: ImportEntity
  readonly scorecard: ImportScorecard
  readonly publication: ImportPublication | undefined
}

interface GenContext {
  readonly seed: string
  readonly counts: { readonly [T in EntityType]: number }
}

const chainBrief = (ctx: GenContext, index: number): ChainBrief => {
  const c = identityOf(ctx.seed, "chain", index)
  return { id: c.id, slug: c.slug, name: c.name }
}

const refOf = (ctx: GenContext, type: EntityType, index: number) => {
  const r = identityOf(ctx.seed, type, index)
  return { id: r.id, slug: r.slug, name: r.name }
}

/** A dependency the generated scorecard declares. */
interface Dep {
  readonly entity_type: EntityType
  readonly slug: string
  readonly exposure: number
}

/** Up to three distinct chains an entity runs on (none for a chain, or when there are no chains). */
const pickChains = (ctx: GenContext, type: EntityType, rng: SeededRandom): Array<ChainBrief> => {
  const chainCount = ctx.counts.chain
  const pickChain = (): ChainBrief | undefined =>
    chainCount === 0 ? undefined : chainBrief(ctx, rng.int(chainCount))
  const chains: Array<ChainBrief> = []
  if (type !== "chain") {
    for (let n = rng.between(1, 3); n > 0; n--) {
      const c = pickChain()
      if (c !== undefined && !chains.some((x) => x.slug === c.slug)) chains.push(c)
    }
  }
  return chains
}

/** The record fields every type shares, drawn from `rng` in this order (the dataset's bytes depend on it). */
const commonRecord = (
  identity: Identity,
  chains: Array<ChainBrief>,
  status: EntityStatus,
  created: number,
  publishedAt: number
) => {
  const { id, name, slug, rng } = identity
  return {
    id,
    name,
    slug,
    status,
    chains,
    urls: { website: `https://${slug}.example.org` },
    external_ids: rng.chance(0.7) ? { defillama: slug } : { defillama_note: "Not listed (generated data)." },
    description: "Generated benchmark entity: not a real project, and its figures are not a real rating.",
    is_active: !rng.chance(0.02),
    is_private: rng.chance(0.01),
    created_at: iso(created),
    updated_at: iso(status === "published" ? publishedAt : created)
  }
}

type Common = ReturnType<typeof commonRecord>

/** What a type's builder reads: the context, the entity's index, name and generator, and its common fields. */
interface Draw {
  readonly ctx: GenContext
  readonly index: number
  readonly name: string
  readonly rng: SeededRandom
  readonly common: Common
  /** The dependencies the entity's scorecard declares; a builder adds to them. */
  readonly deps: Array<Dep>
}

/** A chain; an L2 settles on another chain, and chain 0 stands in for its settlement layer. */
const chainEntity = ({ ctx, index, rng, common, deps }: Draw): ImportEntity => {
  const categories = rng.pick(V.ChainKinds)
  const entity: ImportEntity = {
    entity_type: "chain",
    record: { ...common, categories, chain_id: 10_000 + index }
  }
  if (categories.includes("l2") && index > 0) {
    deps.push({ entity_type: "chain", slug: chainBrief(ctx, 0).slug, exposure: 0.4 })
  }
  return entity
}

/** A protocol, depending on its chains and, half the time, on an oracle. */
const protocolEntity = ({ ctx, rng, common, deps }: Draw): ImportEntity => {
  const categories = [rng.pick(V.ProtocolCategories)]
  const entity: ImportEntity = { entity_type: "protocol", record: { ...common, categories } }
  for (const c of common.chains)
    deps.push({ entity_type: "chain", slug: c.slug, exposure: rng.between(3, 10) / 10 })
  if (ctx.counts.oracle > 0 && rng.chance(0.5)) {
    const oracle = refOf(ctx, "oracle", rng.int(ctx.counts.oracle))
    deps.push({ entity_type: "oracle", slug: oracle.slug, exposure: rng.between(3, 7) / 10 })
  }
  return entity
}

/** A token, at home on its first chain. */
const tokenEntity = ({ name, rng, common }: Draw): ImportEntity => {
  const categories = rng.pick(V.TokenKinds)
  const home = common.chains[0] ?? { slug: "unknown-chain", name: "Unknown chain" }
  const { chains, ...rest } = common
  return {
    entity_type: "token",
    record: {
      ...rest,
      symbol: name.split(" ")[0]!.toUpperCase().slice(0, 6),
      contract_address: `0x${rng.uuid().replaceAll("-", "")}${rng.uuid().slice(0, 8)}`,
      chain: home,
      chains,
      categories
    }
  }
}

/** A vault, mostly curated by an organisation, built on a protocol. */
const vaultEntity = ({ ctx, rng, common, deps }: Draw): ImportEntity => {
  // A framework is the template instances are built on: it has no curator of its own.
  const is_framework = rng.chance(0.02)
  const curator =
    !is_framework && ctx.counts.organisation > 0 && rng.chance(0.85)
      ? refOf(ctx, "organisation", rng.int(ctx.counts.organisation))
      : null
  const entity: ImportEntity = {
    entity_type: "vault",
    record: {
      ...common,
      categories: rng.pick(V.VaultKinds),
      curator_id: curator?.id ?? null,
      curator,
      is_framework
    }
  }
  if (ctx.counts.protocol > 0) {
    deps.push({
      entity_type: "protocol",
      slug: refOf(ctx, "protocol", rng.int(ctx.counts.protocol)).slug,
      exposure: 1
    })
  }
  return entity
}

/** A bridge, mostly with a fixed signer set and a two-thirds threshold. */
const bridgeEntity = ({ rng, common }: Draw): ImportEntity => {
  const fixedSet = rng.chance(0.8)
  const signers = rng.between(5, 100)
  return {
    entity_type: "bridge",
    record: {
      ...common,
      categories: rng.pick(V.BridgeKinds),
      signer_count: fixedSet ? signers : null,
      signing_threshold: fixedSet ? Math.ceil((signers * 2) / 3) : null,
      has_message_attestation: rng.chance(0.6),
      pause_mechanism: "A multisig of the operator can pause transfers.",
      validator_set_owner: null
    }
  }
}

/** The entity record of a type, with the type's own fields and dependencies. */
const typedEntity = (type: EntityType, draw: Draw): ImportEntity => {
  switch (type) {
    case "chain":
      return chainEntity(draw)
    case "protocol":
      return protocolEntity(draw)
    case "token":
      return tokenEntity(draw)
    case "oracle":
      return { entity_type: "oracle", record: { ...draw.common, categories: draw.rng.pick(V.OracleKinds) } }
    case "organisation":
      return {
        entity_type: "organisation",
        record: { ...draw.common, categories: draw.rng.pick(V.OrganisationKinds) }
      }
    case "vault":
      return vaultEntity(draw)
    case "bridge":
      return bridgeEntity(draw)
  }
}

/** The publish act of a published entity's first version. */
const publicationOf = (type: EntityType, slug: string, publishedAt: number): ImportPublication => ({
  entity_type: type,
  slug,
  scorecard_version: 1,
  published_at: iso(publishedAt),
  reasoning: "Initial rating (generated benchmark data).",
  actor: "generator"
})

/** Entity `index` of a type: its record with domain weights, its draft scorecard and, if published, its publish act. */
const generateEntity = (ctx: GenContext, type: EntityType, index: number): Generated => {
  const identity = identityOf(ctx.seed, type, index)
  const { name, slug, rng } = identity
  const chains = pickChains(ctx, type, rng)
  const status = statusOf(rng)
  const created = CreatedFrom + rng.int(300) * DayMs
  const publishedAt = publishedAtOf(type, index)
  const common = commonRecord(identity, chains, status, created, publishedAt)
  const deps: Array<Dep> = []
  const entity = typedEntity(type, { ctx, index, name, rng, common, deps })
  const categories = entity.record.categories ?? []
  const weights = weightsFor(type, categories)
  const withWeights: ImportEntity = { ...entity, domain_weights: weights }
  const scorecard: ImportScorecard = {
    id: rng.uuid(),
    entity_type: type,
    slug,
    scorecard_version: 1,
    domain_weights: weights,
    answers: answersFor(type, weights, rng),
    dependencies: deps
  }
  const publication = status === "published" ? publicationOf(type, slug, publishedAt) : undefined
  return { entity: withWeights, scorecard, publication }
}

const fileName = (n: number, width: number, kind: string): string =>
  `${String(n).padStart(width, "0")}-${kind}.json`

/** The dataset as import files, produced one at a time: the rubric first, then entities in type order. */
export function* generateDataset(options: GenerateOptions): Generator<GeneratedFile> {
  const total = options.entities
  if (!Number.isSafeInteger(total) || total < 0)
    throw new RangeError(`entities must be a whole number >= 0: ${total}`)
  const perFile = options.entitiesPerFile ?? DefaultEntitiesPerFile
  if (!Number.isSafeInteger(perFile) || perFile < 1)
    throw new RangeError(`entitiesPerFile must be >= 1: ${perFile}`)
  const seed = String(options.seed)
  const counts = Object.fromEntries(typeCounts(total)) as { [T in EntityType]: number }
  const ctx: GenContext = { seed, counts }
  const width = Math.max(4, String(Math.ceil(total / perFile)).length)
  yield {
    name: fileName(0, width, "rubric"),
    entities: 0,
    content: {
      format: ImportFormatVersion,
      description: `Generated benchmark dataset (seed ${seed}, ${total} entities): the rubric.`,
      questions: RubricQuestions
    }
  }
  let fileNo = 1
  let entities: Array<ImportEntity> = []
  let scorecards: Array<ImportScorecard> = []
  let publications: Array<ImportPublication> = []
  let first = 0
  let done = 0
  const flush = (): GeneratedFile => {
    const file: GeneratedFile = {
      name: fileName(fileNo++, width, "entities"),
      entities: entities.length,
      content: {
        format: ImportFormatVersion,
        description:
          `Generated benchmark dataset (seed ${seed}): entities ${first + 1} to ${done} of ${total}. ` +
          "Not real projects or ratings.",
        entities,
        scorecards,
        publications
      }
    }
    entities = []
    scorecards = []
    publications = []
    first = done
    return file
  }
  for (const [type, count] of typeCounts(total)) {
    for (let i = 0; i < count; i++) {
      const g = generateEntity(ctx, type, i)
      entities.push(g.entity)
      scorecards.push(g.scorecard)
      if (g.publication !== undefined) publications.push(g.publication)
      done++
      if (entities.length === perFile) yield flush()
    }
  }
  if (entities.length > 0) yield flush()
}

/** The exact bytes of a generated file: compact JSON (the files are for machines) and a final newline. */
export const renderDatasetFile = (content: ImportFile): string => `${JSON.stringify(content)}\n`

export interface DatasetProgress {
  readonly file: string
  readonly filesWritten: number
  readonly entitiesWritten: number
  readonly totalEntities: number
}

export interface DatasetSummary {
  readonly dir: string
  readonly files: ReadonlyArray<string>
  readonly entities: number
  readonly bytes: number
}

export class DatasetDirectoryNotEmpty extends Schema.TaggedError<DatasetDirectoryNotEmpty>()(
  "DatasetDirectoryNotEmpty",
  { dir: Schema.String, message: Schema.String }
) {}

/**
 * Writes the dataset into `dir` (created if missing), file by file, calling
 * `onProgress` after each. A folder that already holds JSON files is refused
 * unless `overwrite` is set (then those files are removed first): an import of
 * the folder would otherwise mix two datasets.
 */
export const writeDataset = (
  dir: string,
  options: GenerateOptions & { readonly overwrite?: boolean },
  onProgress?: (progress: DatasetProgress) => void
): Effect.Effect<
  DatasetSummary,
  PlatformError.PlatformError | DatasetDirectoryNotEmpty,
  FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(dir, { recursive: true })
    const stale = (yield* fs.readDirectory(dir)).filter((n) => n.endsWith(".json")).sort()
    if (stale.length > 0) {
      if (options.overwrite !== true) {
        return yield* new DatasetDirectoryNotEmpty({
          dir,
          message: `${dir} already holds ${stale.length} JSON file(s); choose an empty folder or pass overwrite`
        })
      }
      for (const name of stale) yield* fs.remove(path.join(dir, name))
    }
    const files: Array<string> = []
    let entities = 0
    let bytes = 0
    for (const file of generateDataset(options)) {
      const text = renderDatasetFile(file.content)
      yield* fs.writeFileString(path.join(dir, file.name), text)
      files.push(file.name)
      entities += file.entities
      bytes += Buffer.byteLength(text)
      onProgress?.({
        file: file.name,
        filesWritten: files.length,
        entitiesWritten: entities,
        totalEntities: options.entities
      })
    }
    return { dir, files, entities, bytes }
  })
