/**
 * Decoding the files of one import into one body of located items. A file is
 * read item by item as a stream when it decodes cleanly (`addStream`), else
 * parsed whole and decoded with all errors collected (`add`); then its items
 * are decoded one by one so that the valid ones still take part in the
 * cross-file checks (duplicate slugs, unknown question ids...), and the ones
 * that failed are remembered so that a reference to them is not reported a
 * second time as "missing": the operator sees the real cause once. Answers
 * are kept in a compact table (ImportAnswerTable.ts), not as objects.
 */
import { Result } from "effect"
import { NulMessage, nulPaths } from "../model/Primitives.ts"
import type { Question } from "../model/Question.ts"
import {
  ImportDecodeOptions,
  type ImportEntity,
  type ImportHistory,
  type ImportIncident,
  type ImportPublication,
  type ImportQuantumSnapshot,
  type ImportScorecard,
  type ImportSectionName
} from "./ImportFile.ts"
import { decodeFile, decodeFileFast, decodeQuantum, itemDecoders, sectionNames } from "./ImportDecoders.ts"
import type { ReadBytes } from "./ImportJsonStream.ts"
import { decodeStream } from "./ImportStreamDecode.ts"
import { type DerivedIds, withIds } from "./ImportIdFill.ts"
import { type ImportIssue, jsonPath, schemaIssues } from "./ImportIssue.ts"
import type { ImportSource } from "./ImportJsonText.ts"
import { answerTable, withLazyAnswers } from "./ImportAnswerTable.ts"
import { type StringPool, stringPool } from "./ImportStringPool.ts"
import { lazyLocated, type RecordStore, recordStore } from "./ImportRecordStore.ts"
import type { ChunkSpill } from "./ImportSpill.ts"

/** A decoded value and where it came from, for messages. */
export interface Located<A> {
  readonly source: string
  /** JSON path of the value in its file, such as `$.entities[3]`. */
  readonly path: string
  readonly value: A
}

/** Keys of what failed to decode; `*` stands for "something that could not even be identified". */
export interface Broken {
  /** `type:slug` of entities. */
  readonly entities: ReadonlySet<string>
  /** Entity types whose catalogue in the import lost a question. */
  readonly questionTypes: ReadonlySet<string>
  /** `type:slug:version` of scorecards. */
  readonly scorecards: ReadonlySet<string>
}

export interface ImportContent {
  readonly entities: ReadonlyArray<Located<ImportEntity>>
  readonly questions: ReadonlyArray<Located<Question>>
  readonly scorecards: ReadonlyArray<Located<ImportScorecard>>
  readonly history: ReadonlyArray<Located<ImportHistory>>
  readonly incidents: ReadonlyArray<Located<ImportIncident>>
  readonly quantum: ReadonlyArray<Located<ImportQuantumSnapshot>>
  readonly publications: ReadonlyArray<Located<ImportPublication>>
  readonly broken: Broken
  /** The items whose ids were left out and derived (ImportIdFill.ts). */
  readonly derived: DerivedIds
}

export interface Decoded {
  readonly content: ImportContent
  readonly issues: ReadonlyArray<ImportIssue>
}

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** What a broken item would have been known by, read from the raw JSON as far as it goes. */
const brokenKey = (
  section: ImportSectionName,
  raw: unknown
): { set: keyof Broken; key: string } | undefined => {
  const o = isObject(raw) ? raw : {}
  switch (section) {
    case "entities": {
      const type = str(o.entity_type)
      const slug = isObject(o.record) ? str(o.record.slug) : undefined
      return { set: "entities", key: type === undefined || slug === undefined ? "*" : `${type}:${slug}` }
    }
    case "questions":
      return { set: "questionTypes", key: str(o.entity_type) ?? "*" }
    case "scorecards": {
      const type = str(o.entity_type)
      const slug = str(o.slug)
      const version = typeof o.scorecard_version === "number" ? o.scorecard_version : undefined
      return {
        set: "scorecards",
        key:
          type === undefined || slug === undefined || version === undefined
            ? "*"
            : `${type}:${slug}:${version}`
      }
    }
    default:
      return undefined
  }
}

/**
 * Decodes sources one at a time, as they are read: a file's parsed JSON can
 * be dropped once `add` returns, so only the decoded items stay in memory.
 */
export interface SourceDecoder {
  readonly add: (source: ImportSource) => void
  /**
   * Decodes the file `read` gives item by item, never holding it whole; false
   * (and nothing added) when it does not decode cleanly: `add` it parsed, for
   * its issues.
   */
  readonly addStream: (name: string, read: ReadBytes) => boolean
  /** Everything added so far, decoded, with every issue found. */
  readonly result: () => Decoded
}

type Derived = { readonly entities: Set<string>; readonly scorecards: Set<string> }

/** What a decoder has gathered so far. */
interface DecoderState {
  readonly issues: Array<ImportIssue>
  readonly out: { readonly [K in ImportSectionName]: Array<Located<unknown>> }
  readonly quantum: Array<Located<ImportQuantumSnapshot>>
  readonly broken: { readonly [K in keyof Broken]: Set<string> }
  readonly derived: Derived
  /**
   * The scorecard located, its answers kept compactly (ImportAnswerTable.ts)
   * and its other fields as bytes (ImportRecordStore.ts) when JSON keeps them exactly.
   */
  readonly compact: (source: string, path: string, sc: ImportScorecard) => Located<ImportScorecard>
  /** Shares the repeated texts of the other items. */
  readonly pool: StringPool
  /** Holds the entities' records as bytes until they are written (ImportRecordStore.ts). */
  readonly records: RecordStore
}

/** A decoded item with its ids derived where left out (recorded in `derived`), located. */
const locate = (
  st: DecoderState,
  derived: Derived,
  section: ImportSectionName,
  source: string,
  index: number,
  value: unknown
): Located<unknown> => {
  const filled = withIds(section, value, derived)
  const path = jsonPath([section, index])
  if (section === "scorecards") return st.compact(source, path, filled as ImportScorecard)
  const ref = section === "entities" ? st.records.add(filled) : undefined
  if (ref !== undefined) return lazyLocated(source, path, ref)
  return { source, path, value: st.pool.shareIn(filled) }
}

const push = (
  st: DecoderState,
  section: ImportSectionName,
  source: string,
  index: number,
  value: unknown
) => {
  st.out[section].push(locate(st, st.derived, section, source, index, value))
}

const breakAll = (st: DecoderState) => {
  st.broken.entities.add("*")
  st.broken.questionTypes.add("*")
  st.broken.scorecards.add("*")
}

/** The items of a file that failed, decoded one by one: the valid ones kept, the others remembered as broken. */
const salvage = (st: DecoderState, name: string, content: unknown): void => {
  if (!isObject(content)) {
    breakAll(st)
    return
  }
  for (const section of sectionNames) {
    const raw = content[section]
    if (raw === undefined) continue
    if (!Array.isArray(raw)) {
      const key = brokenKey(section, undefined)
      if (key !== undefined) st.broken[key.set].add("*")
      continue
    }
    raw.forEach((item, i) => {
      const decoded = itemDecoders[section](item, { onExcessProperty: "error" })
      if (Result.isSuccess(decoded)) push(st, section, name, i, decoded.success)
      else {
        const key = brokenKey(section, item)
        if (key !== undefined) st.broken[key.set].add(key.key)
      }
    })
  }
  if (content.quantum_snapshot !== undefined) {
    const q = decodeQuantum(content.quantum_snapshot, { onExcessProperty: "error" })
    if (Result.isSuccess(q)) st.quantum.push({ source: name, path: "$.quantum_snapshot", value: q.success })
  }
}

const addParsed = (st: DecoderState, { name, content }: ImportSource): void => {
  // Text with a NUL character cannot be stored: each place is an issue, and the import is refused.
  for (const path of nulPaths(content))
    st.issues.push({ source: name, path: jsonPath(path), message: NulMessage })
  const fast = decodeFileFast(content, ImportDecodeOptions)
  const whole = Result.isSuccess(fast)
    ? fast
    : decodeFile(content, { ...ImportDecodeOptions, reportInput: true })
  if (Result.isFailure(whole)) {
    st.issues.push(...schemaIssues(name, whole.failure.issue))
    salvage(st, name, content)
    return
  }
  const file = whole.success
  for (const section of sectionNames)
    for (const [i, value] of (file[section] ?? []).entries()) push(st, section, name, i, value)
  if (file.quantum_snapshot !== undefined)
    st.quantum.push({ source: name, path: "$.quantum_snapshot", value: file.quantum_snapshot })
}

/** `addStream`: the file's items kept only when all of it decodes, its derived ids recorded then. */
const addStreamed = (st: DecoderState, name: string, read: ReadBytes): boolean => {
  const derived: Derived = { entities: new Set(), scorecards: new Set() }
  const file = decodeStream(read, (section, index, value) => locate(st, derived, section, name, index, value))
  if (file === undefined) return false
  for (const item of file.items) st.out[item.section].push(item.located)
  for (const key of derived.entities) st.derived.entities.add(key)
  for (const key of derived.scorecards) st.derived.scorecards.add(key)
  if (file.quantum !== undefined)
    st.quantum.push({ source: name, path: "$.quantum_snapshot", value: file.quantum })
  return true
}

/** Scorecards with their answers kept compactly, not as objects (ImportAnswerTable.ts). */
const compactScorecards = (records: RecordStore, spill: ChunkSpill | undefined): DecoderState["compact"] => {
  const answers = answerTable(spill)
  return (source, path, sc) => {
    const { answers: list, ...fields } = sc
    const slice = answers.add(list)
    const ref = records.add(fields)
    return ref === undefined
      ? { source, path, value: withLazyAnswers(fields, slice) }
      : lazyLocated(source, path, ref, slice)
  }
}

/**
 * A decoder of sources added one by one; items of a file that fails are
 * salvaged one by one. With a spill, the answers and records it keeps are
 * put there chunk by chunk (ImportSpill.ts).
 */
export const sourceDecoder = (spill?: ChunkSpill): SourceDecoder => {
  const st: DecoderState = {
    issues: [],
    out: { entities: [], questions: [], scorecards: [], history: [], incidents: [], publications: [] },
    quantum: [],
    broken: { entities: new Set(), questionTypes: new Set(), scorecards: new Set() },
    derived: { entities: new Set(), scorecards: new Set() },
    // A store of their own: the plan keeps the entities' records, not the decoded scorecards'.
    compact: compactScorecards(recordStore(spill), spill),
    pool: stringPool(),
    records: recordStore(spill)
  }
  return {
    add: (source) => addParsed(st, source),
    addStream: (name, read) => addStreamed(st, name, read),
    result: () => ({
      content: {
        ...(st.out as unknown as ImportContent),
        quantum: st.quantum,
        broken: st.broken,
        derived: st.derived
      },
      issues: [...st.issues]
    })
  }
}

/** Decodes every source; items of a file that fails are salvaged one by one. */
export const decodeSources = (sources: ReadonlyArray<ImportSource>, spill?: ChunkSpill): Decoded => {
  const decoder = sourceDecoder(spill)
  for (const source of sources) decoder.add(source)
  return decoder.result()
}
