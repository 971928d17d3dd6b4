/**
 * The schema decoders of an import file and of its items, shared by the
 * decoding of a parsed file (ImportDecode.ts) and of a file read item by item
 * (ImportStreamDecode.ts), so that both accept exactly the same input. The
 * fast variants check answers with `isPlainAnswer` (ImportAnswerGuard.ts);
 * only when they fail is the schema alone used, so issues are the schema's.
 */
import { type Result, Schema, type SchemaAST } from "effect"
import { PlainAnswers } from "./ImportAnswerGuard.ts"
import {
  ImportFile,
  ImportQuantumSnapshot,
  ImportScorecard,
  type ImportSectionName,
  ImportSections
} from "./ImportFile.ts"

export const decodeFile = Schema.decodeUnknownResult(ImportFile)
/** ImportScorecard with its answers on the fast path. */
const FastScorecard = ImportScorecard.mapFields((card) => ({ ...card, answers: PlainAnswers }))
export const decodeScorecardFast = Schema.decodeUnknownResult(FastScorecard)
/** ImportFile with each scorecard's answers on the fast path. */
export const decodeFileFast = Schema.decodeUnknownResult(
  ImportFile.mapFields((fields) => ({
    ...fields,
    scorecards: Schema.optionalKey(Schema.Array(FastScorecard))
  }))
)
export const decodeQuantum = Schema.decodeUnknownResult(ImportQuantumSnapshot)
export const itemDecoders: {
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
export const sectionNames = Object.keys(itemDecoders) as ReadonlyArray<ImportSectionName>
