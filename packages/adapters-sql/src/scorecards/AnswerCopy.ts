/**
 * The answers of new scorecards as one binary `COPY` into `answers` (see
 * PgCopy.ts), the rows the INSERT of AnswerColumns.ts would write: the
 * scorecard's id, the position, then the answer's fields. A draft an import
 * decoded keeps its answers in the import's answer table: the ids are read
 * as words, and the field tuples, which are shared, are encoded once per copy
 * and their bytes reused.
 */
import { answerSliceOf } from "@ratings/domain/import/ImportAnswerTable"
import type { Answer } from "@ratings/domain/model/Answer"
import type { StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { CopyWriter } from "./CopyFrames.ts"

export const AnswersCopy = `COPY answers (scorecard_id, position, id, question_id, domain, score, max_score, weight,
  confidence, response, rationale) FROM STDIN (FORMAT binary)`

type Fields = Omit<Answer, "id">

/** The fields after the answer's id, in the columns' order. */
const writeFields = (w: CopyWriter, a: Fields): void => {
  w.text(a.question_id)
  w.text(a.domain)
  w.float8(a.score)
  w.float8(a.max_score)
  w.float8(a.weight)
  w.text(a.confidence)
  w.text(a.response)
  w.text(a.rationale)
}

/** How many answers a scorecard has, without making them when they are in an answer table. */
export const answerCount = (s: StoredScorecard): number => answerSliceOf(s)?.count ?? s.answers.length

/** A UUID's field (length and 16 bytes) in `out`, made by `loose`. */
const uuidField = (loose: CopyWriter, id: string, out: Uint8Array): Uint8Array => {
  loose.uuid(id)
  out.set(loose.drain())
  return out
}

/**
 * The CopyData messages of the answers of `cards`, made as they are asked
 * for, and `written`, to give a message back once the socket has written it
 * (its buffer is reused).
 */
export const answerFrames = (
  cards: ReadonlyArray<StoredScorecard>
): { readonly frames: Iterator<Uint8Array>; readonly written: (frame: Uint8Array) => void } => {
  const w = new CopyWriter()
  return { frames: framesOf(w, cards), written: (frame) => w.release(frame) }
}

function* framesOf(w: CopyWriter, cards: ReadonlyArray<StoredScorecard>): Generator<Uint8Array> {
  const loose = new CopyWriter("loose")
  const scorecardId = new Uint8Array(20)
  // The shared field tuples of an answer table, encoded once per copy.
  const encoded = new Map<Fields, Uint8Array>()
  for (const s of cards) {
    uuidField(loose, s.id, scorecardId)
    const slice = answerSliceOf(s)
    const words = slice === undefined ? undefined : slice.table.idWords(slice)
    if (slice === undefined || words === undefined) {
      // Plain answers, or ids that are not all lower-case UUIDs: field by field.
      const tuples: ReadonlyArray<Fields> = slice === undefined ? s.answers : slice.table.fields(slice)
      const ids = slice === undefined ? undefined : slice.table.ids(slice)
      for (let position = 0; position < tuples.length; position++) {
        const a = tuples[position]!
        w.row(11)
        w.raw(scorecardId)
        w.int4(position)
        w.uuid(ids === undefined ? (a as Answer).id : ids[position]!)
        writeFields(w, a)
        if (w.full) yield w.take()!
      }
      continue
    }
    const tuples = slice.table.fields(slice)
    for (let position = 0; position < tuples.length; position++) {
      const a = tuples[position]!
      let bytes = encoded.get(a)
      if (bytes === undefined) {
        writeFields(loose, a)
        bytes = loose.drain()
        encoded.set(a, bytes)
      }
      w.answerRow(scorecardId, position, words, position * 4, bytes)
      if (w.full) yield w.take()!
    }
  }
  w.end()
  yield w.take()!
}
