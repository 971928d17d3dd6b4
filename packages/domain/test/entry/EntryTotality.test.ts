/**
 * Issue 26 point 7: every exported function of the public entry points is
 * total over any input. Called with arbitrary values (fc.anything(), with the
 * exotic objects it can make) and with near-valid score inputs (one field
 * wrong at a time), each returns a value or a `Result` whose failure is a
 * typed error with a `_tag`, a message and the `field` at fault; none throws.
 * Plus the cases the issue quotes. Imports the entry points, so the
 * domain-dist project runs it against the build as well.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as fc from "fast-check"
import * as grades from "@ratings/domain/grades"
import * as importFormat from "@ratings/domain/import-format"
import * as methodology from "@ratings/domain/methodology"
import * as scoring from "@ratings/domain/scoring"

const Entries = { scoring, grades, methodology, "import-format": importFormat } as const

/** The functions that return a plain value: a predicate over anything, and two without parameters. */
const PlainValued = ["isBridgeCategory", "importJsonSchema", "importJsonSchemaText"]

const isClass = (f: unknown) =>
  typeof f === "function" && /^class[\s{]/.test(Function.prototype.toString.call(f))

const exportedFunctions = (): Array<[string, (...args: Array<unknown>) => unknown]> =>
  Object.entries(Entries).flatMap(([entry, mod]) =>
    Object.entries(mod)
      .filter(([, v]) => typeof v === "function" && !isClass(v) && !("ast" in (v as object)))
      .map(([name, f]) => [`${entry}.${name}`, f as (...args: Array<unknown>) => unknown] as const)
  )

const anything = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true
})

/** A failure as the library promises it: an Error with a tag, a message and the field it names. */
const assertTyped = (failure: unknown, where: string) => {
  assert.instanceOf(failure, Error, where)
  const e = failure as { _tag?: unknown; message?: unknown; field?: unknown }
  assert.isString(e._tag, where)
  assert.isString(e.message, where)
  assert.isAbove((e.message as string).length, 0, where)
  assert.isString(e.field, where)
  assert.isAbove((e.field as string).length, 0, where)
}

/** The result of one call: a value (plain-valued functions), or a Result whose failure is typed. */
const assertTotal = (name: string, out: unknown) => {
  if (PlainValued.some((p) => name.endsWith(`.${p}`))) return
  assert.isTrue(Result.isResult(out), `${name} returns a Result`)
  const r = out as Result.Result<unknown, unknown>
  if (Result.isFailure(r)) assertTyped(r.failure, name)
}

const Valid = {
  entity_type: "protocol",
  categories: ["lending"],
  domain_weights: { security: 60, governance: 40 },
  answers: [
    { domain: "security", score: 4, max_score: 4, weight: 3 },
    { domain: "governance", score: null, max_score: 4, weight: 1, confidence: "not_applicable" },
    { domain: "governance", score: 3, max_score: 5, weight: 2 }
  ],
  dependencies: [{ entity_type: "oracle", slug: "thin-oracle", composite_score: 60, exposure: 0.5 }]
}

/** The valid input with each field kept, dropped or replaced by anything, answers and dependencies item by item. */
const nearValid = fc.record(
  {
    entity_type: fc.oneof(
      fc.constant(Valid.entity_type),
      fc.constantFrom("widget", "Protocol", ""),
      anything
    ),
    categories: fc.oneof(fc.constant(Valid.categories), fc.array(anything, { maxLength: 3 })),
    domain_weights: fc.oneof(
      fc.constant(Valid.domain_weights),
      fc.dictionary(fc.constantFrom("security", "governance", "economic"), anything)
    ),
    answers: fc.oneof(
      fc.constant(Valid.answers),
      fc.tuple(...Valid.answers.map((a) => fc.oneof(fc.constant(a), anything))),
      fc.array(
        fc.record(
          {
            domain: fc.oneof(fc.constantFrom("security", "governance", null), anything),
            score: fc.oneof(fc.double(), fc.constant(null), anything),
            max_score: fc.oneof(fc.double(), anything),
            weight: fc.oneof(fc.double(), anything),
            confidence: fc.oneof(fc.constantFrom("high", "not_applicable", null), anything)
          },
          { requiredKeys: [] }
        ),
        { maxLength: 4 }
      )
    ),
    dependencies: fc.oneof(
      fc.constant(Valid.dependencies),
      fc.array(
        fc.record(
          {
            entity_type: fc.oneof(fc.constantFrom("oracle", "chain", "gizmo"), anything),
            slug: fc.oneof(fc.string(), anything),
            composite_score: fc.oneof(fc.double(), fc.constant(null), anything),
            exposure: fc.oneof(fc.double(), anything)
          },
          { requiredKeys: [] }
        ),
        { maxLength: 3 }
      )
    )
  },
  { requiredKeys: [] }
)

const InputFields = ["input", "entity_type", "categories", "answers", "domain_weights", "dependencies"]

describe("the entry points are total over any input", () => {
  it("finds every exported function (classes and schemas aside)", () => {
    assert.sameMembers(
      exportedFunctions().map(([name]) => name),
      [
        "scoring.checkDomainWeights",
        "scoring.composite",
        "scoring.publishedComposite",
        "scoring.domainScores",
        "scoring.activeDomainWeights",
        "scoring.defaultDomainWeights",
        "scoring.scoreEntity",
        "scoring.renormalise",
        "scoring.applyDrag",
        "grades.gradeOf",
        "grades.roundHalfUp1",
        "methodology.isBridgeCategory",
        "methodology.bridgeDomainWeights",
        "methodology.typeDomainWeights",
        "methodology.extraDomainFor",
        "methodology.domainsOfType",
        "import-format.formatImportIssue",
        "import-format.jsonPath",
        "import-format.importJsonSchema",
        "import-format.importJsonSchemaText"
      ]
    )
  })

  for (const [name, f] of exportedFunctions()) {
    it(`${name} never throws, and fails only with a typed error naming a field`, () => {
      fc.assert(
        fc.property(fc.array(anything, { maxLength: 3 }), (args) => assertTotal(name, f(...args))),
        { numRuns: 300 }
      )
    })
  }

  it("scoreEntity over near-valid input: a score, or a typed error naming the input's field", () => {
    fc.assert(
      fc.property(nearValid, (input) => {
        const r = scoring.scoreEntity(input as never)
        assertTotal("scoring.scoreEntity", r)
        if (Result.isFailure(r)) {
          assert.include(InputFields, r.failure.field.split(/[.[]/)[0], r.failure.field)
        }
      }),
      { numRuns: 1000 }
    )
  })

  it("the Scoring service scores any input to a typed failure, never a defect", () => {
    const service = Effect.runSync(
      Effect.gen(function* () {
        return yield* scoring.Scoring
      }).pipe(Effect.provide(scoring.Scoring.layer))
    )
    fc.assert(
      fc.property(fc.oneof(anything, nearValid), (input) => {
        assertTotal("Scoring.scoreSync", service.scoreSync(input as never))
        assertTotal("Scoring.score", Effect.runSync(Effect.result(service.score(input as never))))
        assertTotal(
          "Scoring.defaultDomainWeights",
          service.defaultDomainWeights(input as never, input as never)
        )
      }),
      { numRuns: 300 }
    )
  })
})

describe("the quoted cases", () => {
  const failure = (r: Result.Result<unknown, scoring.ScoringError>) => {
    assert.isTrue(Result.isFailure(r))
    return (r as Result.Failure<unknown, scoring.ScoringError>).failure
  }

  it("scoreEntity({}) says which fields are missing", () => {
    const e = failure(scoring.scoreEntity({} as never))
    assert.strictEqual(e._tag, "InvalidInput")
    assert.strictEqual(e.field, "entity_type")
    assert.strictEqual(e.message, "the score input is missing entity_type, categories and answers")
  })

  it('entity_type "widget" is an unknown type, and the message lists the seven', () => {
    const e = failure(scoring.scoreEntity({ ...Valid, entity_type: "widget" } as never))
    assert.strictEqual(e._tag, "InvalidInput")
    assert.strictEqual(e.field, "entity_type")
    assert.include(e.message, '"widget" is not a known entity type')
    for (const t of scoring.EntityTypes) assert.include(e.message, t)
  })

  it("scoreEntity(null) is a typed failure, not a TypeError", () => {
    const e = failure(scoring.scoreEntity(null as never))
    assert.instanceOf(e, scoring.InvalidInput)
    assert.strictEqual(e.field, "input")
    assert.strictEqual(
      e.message,
      "input must be an object with entity_type, categories and answers, got null"
    )
  })

  it("an answer of the wrong shape names its field", () => {
    const answers = [Valid.answers[0], { ...Valid.answers[2], score: "3" }]
    const e = failure(scoring.scoreEntity({ ...Valid, answers } as never))
    assert.strictEqual(e.field, "answers[1].score")
    assert.strictEqual(e.message, 'answers[1].score must be a number or null, got "3"')
  })

  for (const score of [Number.NaN, 101, -1]) {
    it(`gradeOf(${score}) is a typed failure naming the score`, () => {
      const e = failure(grades.gradeOf(score))
      assert.strictEqual(e._tag, "InvalidInput")
      assert.strictEqual(e.field, "score")
      assert.strictEqual(e.message, `score must be a finite number from 0 to 100, got ${score}`)
    })
  }

  it("gradeOf grades a score from 0 to 100 after rounding (the README's example)", () => {
    assert.deepStrictEqual(
      [0, 34.94, 34.95, 84.95, 100].map((s) => Result.getOrThrow(grades.gradeOf(s))),
      ["D", "D", "C", "AA", "AAA"]
    )
  })

  it("the valid input still scores as before", () => {
    const r = Result.getOrThrow(scoring.scoreEntity(Valid as never))
    // security 4/4 = 1, governance 3/5 = 0.6 (the not_applicable answer aside): 60 + 24 = 84; the oracle at 60
    // drags 0.5 x (84 - 60) = 12.
    assert.deepStrictEqual([r.intrinsic_composite_score, r.composite_score, r.grade], [84, 72, "BBB"])
  })
})
