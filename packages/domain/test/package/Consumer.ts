/**
 * What the installed-package test asks of a consumer: a TypeScript program
 * that uses every entry point (and must type-check), one with a deliberate
 * type error and one that reaches for an internal module (both must be
 * refused), and a browser entry that scores a scorecard into a global and
 * refuses another with a typed error.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"

const Good = `import { Result } from "effect"
import { scoreEntity, type ScoreResult, Scoring } from "@ratings/domain/scoring"
import { gradeOf, type Grade } from "@ratings/domain/grades"
import { BaseDomainWeights, MethodologyVersion } from "@ratings/domain/methodology"
import { ImportFormatVersion, importJsonSchema } from "@ratings/domain/import-format"
import { scoreEntity as fromRoot } from "@ratings/domain"

const scored = scoreEntity({
  entity_type: "protocol",
  categories: [],
  answers: [{ domain: "security", score: 3, max_score: 4, weight: 1 }],
  domain_weights: { security: 100 }
})
const headline: number | undefined = Result.isSuccess(scored) ? scored.success.composite_score : undefined
const graded = gradeOf(headline ?? 0)
const grade: Grade | undefined = Result.isSuccess(graded) ? graded.success : undefined
const result: ScoreResult | undefined = Result.isSuccess(scored) ? scored.success : undefined
const weights: number | undefined = BaseDomainWeights.protocol.security
const version: string = MethodologyVersion + ImportFormatVersion
const schema: object = importJsonSchema()
export { fromRoot, grade, result, schema, Scoring, version, weights }
`

/** A grade is a string literal union, and entity_type a closed set: both lines must be reported. */
const Bad = `import { gradeOf } from "@ratings/domain/grades"
import { scoreEntity } from "@ratings/domain/scoring"
export const g: number = gradeOf(50)
export const s = scoreEntity({ entity_type: "protocl", categories: [], answers: [] })
`

/** Internal modules are reachable inside the workspace only. */
const Internal = `import { Caller } from "@ratings/domain/model/Caller"
export { Caller }
`

export const BrowserEntry = `import { scoreEntity } from "@ratings/domain/scoring"
const r = scoreEntity({
  entity_type: "protocol",
  categories: ["lending"],
  domain_weights: { security: 60, governance: 40 },
  answers: [
    { domain: "security", score: 4, max_score: 4, weight: 3 },
    { domain: "security", score: 2, max_score: 4, weight: 1 },
    { domain: "governance", score: 3, max_score: 5, weight: 2 }
  ]
})
globalThis.scored = r._tag === "Success" ? [r.success.composite_score, r.success.grade] : r.failure.message
const bad = scoreEntity({
  entity_type: "protocol",
  categories: [],
  domain_weights: { security: 60 },
  answers: [{ domain: "security", score: 1, max_score: 4, weight: 1 }]
})
const none = scoreEntity(null)
globalThis.refused = [bad, none].map((r) =>
  r._tag === "Failure" ? [r.failure._tag, r.failure instanceof Error, r.failure.field, r.failure.message] : []
)
`

export type Resolution = "nodenext" | "bundler"

/**
 * A new strict project's settings with the module settings of one resolution; types: [] (no
 * @types/node) and skipLibCheck off, so the package's declarations are checked too.
 */
const tsconfig = (resolution: Resolution, files: ReadonlyArray<string>) => ({
  compilerOptions: {
    strict: true,
    target: "es2022",
    module: resolution === "nodenext" ? "nodenext" : "preserve",
    moduleResolution: resolution,
    noEmit: true,
    skipLibCheck: false,
    types: []
  },
  files
})

/**
 * Writes the three programs and two tsconfigs: one for the good program (must pass), one for the
 * deliberate error and the internal import together (both must be reported, in one tsc run).
 */
export const writeConsumer = (dir: string, resolution: Resolution) => {
  for (const [name, text] of [
    ["good", Good],
    ["bad", Bad],
    ["internal", Internal]
  ] as const) {
    writeFileSync(join(dir, `${name}.ts`), text)
  }
  const good = join(dir, `tsconfig.${resolution}.good.json`)
  const bad = join(dir, `tsconfig.${resolution}.bad.json`)
  writeFileSync(good, JSON.stringify(tsconfig(resolution, ["good.ts"])))
  writeFileSync(bad, JSON.stringify(tsconfig(resolution, ["bad.ts", "internal.ts"])))
  return { good, bad }
}
