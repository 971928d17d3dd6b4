/**
 * The seven letter grades, best first (AAA to D). The vocabulary lives in the
 * model so the schemas can name it; the ladder that assigns them to scores is
 * the scoring core's (`scoring/GradeLadder.ts`).
 */
export const Grades = ["AAA", "AA", "A", "BBB", "B", "C", "D"] as const
export type Grade = (typeof Grades)[number]
