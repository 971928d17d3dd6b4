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

/** The CopyData messages of the answers of `cards`, made as they are asked for. */
export function* answerFrames(cards: ReadonlyArray<StoredScorecard>): Generator<Uint8Array> {
  const w = new CopyWriter()
  const loose = new CopyWriter("loose")
  const encoded = new Map<Fields, Uint8Array>()
  for (const s of cards) {
    loose.uuid(s.id)
    const scorecardId = loose.drain()
    const slice = answerSliceOf(s)
    const tuples: ReadonlyArray<Fields> = slice === undefined ? s.answers : slice.table.fields(slice)
    const words = slice === undefined ? undefined : slice.table.idWords(slice)
    const ids = slice === undefined || words !== undefined ? undefined : slice.table.ids(slice)
    for (let position = 0; position < tuples.length; position++) {
      const a = tuples[position]!
      w.row(11)
      w.raw(scorecardId)
      w.int4(position)
      if (words !== undefined) w.uuidWords(words, position * 4)
      else w.uuid(ids === undefined ? (a as Answer).id : ids[position]!)
      if (slice === undefined) writeFields(w, a)
      else {
        let bytes = encoded.get(a)
        if (bytes === undefined) {
          writeFields(loose, a)
          bytes = loose.drain()
          encoded.set(a, bytes)
        }
        w.raw(bytes)
      }
      if (w.full) yield w.take()!
    }
  }
  w.end()
  yield w.take()!
}
