/**
 * Decoding the files of one import into one body of located items. Every file
 * is decoded with all errors collected. When a file fails, its items are
 * decoded one by one so that the valid ones still take part in the
 * cross-file checks (duplicate slugs, unknown question ids...), and the ones
 * that failed are remembered so that a reference to them is not reported a
 * second time as "missing": the operator sees the real cause once.
 *
 * A file is first decoded with its answers checked by `isPlainAnswer`, which
 * is many times faster than the Answer schema; only when that fails is the
 * file decoded by the schema alone, so issues are always the schema's.
 */
import { Result, Schema, type SchemaAST } from "effect"
import { NulMessage, nulPaths } from "../model/Primitives.ts"
import type { Question } from "../model/Question.ts"
import {
  ImportDecodeOptions,
  ImportFile,
  ImportQuantumSnapshot,
  ImportScorecard,
  type ImportEntity,
  type ImportHistory,
  type ImportIncident,
  type ImportPublication,
  type ImportSectionName,
  ImportSections
} from "./ImportFile.ts"
import { PlainAnswers } from "./ImportAnswerGuard.ts"
import { type DerivedIds, withIds } from "./ImportIdFill.ts"
import { type ImportIssue, jsonPath, schemaIssues } from "./ImportIssue.ts"
import type { ImportSource } from "./ImportJsonText.ts"
import { answerTable, withLazyAnswers } from "./ImportAnswerTable.ts"

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

const decodeFile = Schema.decodeUnknownResult(ImportFile)
/** ImportFile with each scorecard's answers on the fast path. */
const decodeFileFast = Schema.decodeUnknownResult(
  ImportFile.mapFields((fields) => ({
    ...fields,
    scorecards: Schema.optionalKey(
      Schema.Array(ImportScorecard.mapFields((card) => ({ ...card, answers: PlainAnswers })))
    )
  }))
)
const decodeQuantum = Schema.decodeUnknownResult(ImportQuantumSnapshot)
const itemDecoders: {
  readonly [K in ImportSectionName]: (
    input: unknown,
    options?: SchemaAST.ParseOptions
  ) => Result.Result<unknown, Schema.SchemaError>
} = {
  entities: Schema.decodeUnknownResult(ImportSections.entities),
  questions: Schema.decodeUnknownResult(ImportSections.questions),
  scorecards: Schema.decodeUnknownResult(ImportSections.scorecards),
  history: Schema.decodeUnknownResult(ImportSections.history),
  incidents: Schema.decodeUnknownResult(ImportSections.incidents),
  publications: Schema.decodeUnknownResult(ImportSections.publications)
}
const sectionNames = Object.keys(itemDecoders) as ReadonlyArray<ImportSectionName>

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

/** Scorecards with their answers kept compactly, not as objects (ImportAnswerTable.ts). */
const compactScorecards = (): ((sc: ImportScorecard) => ImportScorecard) => {
  const answers = answerTable()
  return (sc) => {
    const { answers: list, ...fields } = sc
    return withLazyAnswers(fields, answers.add(list))
  }
}

/**
 * Decodes sources one at a time, as they are read: a file's parsed JSON can
 * be dropped once `add` returns, so only the decoded items stay in memory.
 */
export interface SourceDecoder {
  readonly add: (source: ImportSource) => void
  /** Everything added so far, decoded, with every issue found. */
  readonly result: () => Decoded
}

/** A decoder of sources added one by one; items of a file that fails are salvaged one by one. */
export const sourceDecoder = (): SourceDecoder => {
  const issues: Array<ImportIssue> = []
  const out = {
    entities: [] as Array<Located<ImportEntity>>,
    questions: [] as Array<Located<Question>>,
    scorecards: [] as Array<Located<ImportScorecard>>,
    history: [] as Array<Located<ImportHistory>>,
    incidents: [] as Array<Located<ImportIncident>>,
    publications: [] as Array<Located<ImportPublication>>
  }
  const quantum: Array<Located<ImportQuantumSnapshot>> = []
  const broken = {
    entities: new Set<string>(),
    questionTypes: new Set<string>(),
    scorecards: new Set<string>()
  }
  const breakAll = () => {
    broken.entities.add("*")
    broken.questionTypes.add("*")
    broken.scorecards.add("*")
  }
  const derived = { entities: new Set<string>(), scorecards: new Set<string>() }
  const compact = compactScorecards()
  const push = (section: ImportSectionName, source: string, index: number, value: unknown): void => {
    const filled = withIds(section, value, derived)
    ;(out[section] as Array<Located<unknown>>).push({
      source,
      path: jsonPath([section, index]),
      value: section === "scorecards" ? compact(filled as ImportScorecard) : filled
    })
  }

  const add = ({ name, content }: ImportSource): void => {
    // Text with a NUL character cannot be stored: each place is an issue, and the import is refused.
    for (const path of nulPaths(content))
      issues.push({ source: name, path: jsonPath(path), message: NulMessage })
    const fast = decodeFileFast(content, ImportDecodeOptions)
    const whole = Result.isSuccess(fast)
      ? fast
      : decodeFile(content, { ...ImportDecodeOptions, reportInput: true })
    if (Result.isSuccess(whole)) {
      const file = whole.success
      for (const section of sectionNames)
        for (const [i, value] of (file[section] ?? []).entries()) push(section, name, i, value)
      if (file.quantum_snapshot !== undefined)
        quantum.push({ source: name, path: "$.quantum_snapshot", value: file.quantum_snapshot })
      return
    }
    issues.push(...schemaIssues(name, whole.failure.issue))
    if (!isObject(content)) {
      breakAll()
      return
    }
    for (const section of sectionNames) {
      const raw = content[section]
      if (raw === undefined) continue
      if (!Array.isArray(raw)) {
        const key = brokenKey(section, undefined)
        if (key !== undefined) broken[key.set].add("*")
        continue
      }
      raw.forEach((item, i) => {
        const decoded = itemDecoders[section](item, { onExcessProperty: "error" })
        if (Result.isSuccess(decoded)) push(section, name, i, decoded.success)
        else {
          const key = brokenKey(section, item)
          if (key !== undefined) broken[key.set].add(key.key)
        }
      })
    }
    if (content.quantum_snapshot !== undefined) {
      const q = decodeQuantum(content.quantum_snapshot, { onExcessProperty: "error" })
      if (Result.isSuccess(q)) quantum.push({ source: name, path: "$.quantum_snapshot", value: q.success })
    }
  }
  return { add, result: () => ({ content: { ...out, quantum, broken, derived }, issues: [...issues] }) }
}

/** Decodes every source; items of a file that fails are salvaged one by one. */
export const decodeSources = (sources: ReadonlyArray<ImportSource>): Decoded => {
  const decoder = sourceDecoder()
  for (const source of sources) decoder.add(source)
  return decoder.result()
}
