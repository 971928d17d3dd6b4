/**
 * The grade ladder: the one table that both the scoring core and the
 * `/methodology` endpoint read, so the published thresholds and the grades the
 * core assigns can never disagree.
 */
import { type Grade, Grades } from "../model/Grade.ts"

export { type Grade, Grades }

export interface GradeBand {
  readonly grade: Grade
  /** Inclusive lower bound on the composite score (0-100), after rounding. */
  readonly min_score: number
  readonly description: string
}

/** Highest band first. The last band starts at 0, so every score in [0, 100] has a grade. */
export const GradeLadder: ReadonlyArray<GradeBand> = [
  { grade: "AAA", min_score: 95, description: "Exceptional" },
  { grade: "AA", min_score: 85, description: "Very strong" },
  { grade: "A", min_score: 75, description: "Strong" },
  { grade: "BBB", min_score: 65, description: "Adequate" },
  { grade: "B", min_score: 50, description: "Speculative" },
  { grade: "C", min_score: 35, description: "Weak" },
  { grade: "D", min_score: 0, description: "Failed / unsafe" }
]

export const GradeRounding =
  "Composite scores are rounded half-up to one decimal place before band assignment."

/**
 * Half-up rounding to one decimal. Composites come out of floating-point sums,
 * so a value that is a tie in exact arithmetic (84.95) may arrive as
 * 84.94999999999999; the small tolerance keeps such ties rounding up as the
 * published rule says.
 */
export const roundHalfUp1 = (score: number): number => {
  const scaled = score * 10
  const rounded = Math.floor(scaled + 0.5 + 1e-9 * Math.max(1, Math.abs(scaled)))
  return rounded / 10
}

/** Grade of a composite score (0-100); the score is rounded half-up to one decimal first. */
export const gradeOf = (score: number): Grade => {
  const rounded = roundHalfUp1(score)
  for (const band of GradeLadder) {
    if (rounded >= band.min_score) return band.grade
  }
  return "D"
}
