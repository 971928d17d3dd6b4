/**
 * `@ratings/domain/grades`: the grade ladder, seven bands from AAA to D. A
 * composite is rounded half-up to one decimal, then graded by the first band
 * whose minimum it reaches. The functions take any input: a value that is not
 * a score is an `InvalidInput` naming the field, never a throw.
 */
import { Result } from "effect"
import { type Grade, gradeOf as ladderGrade, roundHalfUp1 as roundTenths } from "../scoring/GradeLadder.ts"
import { checkNumber } from "../scoring/InputGuard.ts"
import type { InvalidInput } from "../scoring/ScoringError.ts"

export { type Grade, type GradeBand, GradeLadder, GradeRounding, Grades } from "../scoring/GradeLadder.ts"
export { InvalidInput } from "../scoring/ScoringError.ts"

/** The grade of a composite score from 0 to 100, rounded half-up to one decimal first. */
export const gradeOf = (score: number): Result.Result<Grade, InvalidInput> =>
  Result.map(checkNumber("score", score, 0, 100), ladderGrade)

/** Half-up rounding to one decimal, as composites are published. */
export const roundHalfUp1 = (score: number): Result.Result<number, InvalidInput> =>
  Result.map(checkNumber("score", score), roundTenths)
