import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { isPlainAnswer } from "../../src/import/ImportAnswerGuard.ts"
import { decodeSources } from "../../src/import/ImportDecode.ts"
import { ImportDecodeOptions } from "../../src/import/ImportFile.ts"
import { Answer, Confidences } from "../../src/model/Answer.ts"
import { Uuid } from "../../src/model/Primitives.ts"
import { answer, entity, file, protocolQuestions, scorecard } from "./ImportFixtures.ts"

const decodeAnswer = Schema.decodeUnknownResult(Answer)

/** Strings shaped like UUIDs, near misses of every kind, and arbitrary text. */
const uuidLike = fc.oneof(
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.constantFrom(
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    "00000000-0000-4000-8000-00000000000g",
    "00000000-0000-0000-8000-000000000001",
    "00000000-0000-9000-8000-000000000001",
    "00000000-0000-4000-c000-000000000001",
    "00000000-0000-4000-8000-0000000000011",
    " 00000000-0000-4000-8000-000000000001",
    "00000000-0000-4000-8000-000000000001\n",
    ""
  ),
  fc.stringMatching(/^[0-9a-gA-G]{8}-[0-9a-f]{4}-[0-9][0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  fc.string()
)

const edgeNumber = fc.constantFrom(
  0,
  -0,
  1,
  4,
  0.5,
  -1,
  5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -Number.MIN_VALUE
)
const number = fc.oneof(edgeNumber, fc.double())
const nullable = <A>(a: fc.Arbitrary<A>) => fc.oneof(fc.constant(null), a)
const anything = fc.oneof(
  fc.constant(undefined),
  fc.boolean(),
  fc.string(),
  number,
  fc.constant([]),
  fc.constant({})
)
/** Mostly a valid value, sometimes anything at all. */
const mostly = <A>(valid: fc.Arbitrary<A>, ...invalid: ReadonlyArray<fc.Arbitrary<unknown>>) =>
  fc.oneof({ weight: 30, arbitrary: valid }, ...invalid.map((arbitrary) => ({ weight: 1, arbitrary })), {
    weight: 1,
    arbitrary: anything
  })

/** Answer-like objects: mostly valid fields, sometimes a wrong one, a missing key or an extra key. */
const answerLike = fc
  .record({
    id: mostly(fc.uuid(), uuidLike),
    question_id: mostly(fc.string({ minLength: 1 }), fc.constant("")),
    domain: mostly(nullable(fc.string())),
    score: mostly(
      nullable(fc.oneof(fc.constantFrom(0, -0, 2, 4), fc.double({ min: 0, max: 4, noNaN: true }))),
      number
    ),
    max_score: mostly(fc.constantFrom(4, 0.5, 100), number),
    weight: mostly(fc.double({ min: Number.MIN_VALUE, max: 1e6, noNaN: true }), number),
    confidence: mostly(nullable(fc.constantFrom(...Confidences)), fc.constantFrom("HIGH", "none")),
    response: mostly(nullable(fc.string())),
    rationale: mostly(nullable(fc.string()))
  })
  .chain((a) =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constant<Record<string, unknown>>(a) },
      fc.constantFrom(...Object.keys(a)).map((drop) => {
        const { [drop]: _, ...rest } = a as Record<string, unknown>
        return rest
      }),
      fc.tuple(fc.string(), anything).map(([key, value]) => ({ ...a, [`x${key}`]: value }))
    )
  )

describe("ImportAnswerGuard", () => {
  it("an answer the fast path accepts is one the Answer schema decodes, under the import's options, to the same value", () => {
    let accepted = 0
    fc.assert(
      fc.property(answerLike, (u) => {
        if (!isPlainAnswer(u)) return
        accepted++
        const decoded = decodeAnswer(u, ImportDecodeOptions)
        assert.isTrue(Result.isSuccess(decoded), JSON.stringify(u))
        if (Result.isSuccess(decoded)) assert.deepStrictEqual(decoded.success, u)
      }),
      { numRuns: 5000 }
    )
    assert.isAbove(accepted, 100, "the generator reaches valid answers")
  })

  it("every answer the Answer schema accepts as written in a JSON file takes the fast path", () => {
    let valid = 0
    fc.assert(
      fc.property(answerLike, (u) => {
        const parsed: unknown = JSON.parse(JSON.stringify(u))
        if (!Result.isSuccess(decodeAnswer(parsed, ImportDecodeOptions))) return
        valid++
        assert.isTrue(isPlainAnswer(parsed), JSON.stringify(parsed))
      }),
      { numRuns: 5000 }
    )
    assert.isAbove(valid, 100, "the generator reaches valid answers")
  })

  it("its UUID check is the Uuid schema's: the same strings pass", () => {
    const isUuid = Schema.is(Uuid)
    const probe = (id: unknown) => isPlainAnswer({ ...answer(1, "PROT-SEC-01", "security", 2), id })
    fc.assert(
      fc.property(uuidLike, (id) => {
        assert.strictEqual(probe(id), isUuid(id), id)
      }),
      { numRuns: 5000 }
    )
  })

  it("a file with one wrong answer among many is reported by the schema, at that answer's path", () => {
    const answers = [
      ...Array.from({ length: 20 }, (_, i) => answer(100 + i, "PROT-SEC-01", "security", 2)),
      answer(200, "PROT-SEC-02", "security", 9),
      answer(201, "PROT-GOV-01", "governance", 1, { confidence: "certain" })
    ]
    const content = file({
      entities: [entity("protocol", "lend-protocol", 1)],
      questions: protocolQuestions,
      scorecards: [scorecard(10, "lend-protocol", 1, answers)]
    })
    const decoded = decodeSources([{ name: "a.json", content }])
    assert.deepStrictEqual(
      decoded.issues.map((i) => i.path),
      ["$.scorecards[0].answers[20].score", "$.scorecards[0].answers[21].confidence"]
    )
    const valid = decodeSources([
      {
        name: "a.json",
        content: { ...content, scorecards: [scorecard(10, "lend-protocol", 1, answers.slice(0, 20))] }
      }
    ])
    assert.deepStrictEqual(valid.issues, [])
    assert.deepStrictEqual(valid.content.scorecards[0]!.value.answers as unknown, answers.slice(0, 20))
  })
})
