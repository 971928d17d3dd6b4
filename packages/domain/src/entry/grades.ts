/**
 * `@ratings/domain/grades`: the grade ladder, seven bands from AAA to D. A composite
 * is rounded half-up to one decimal, then graded by the first band whose
 * minimum it reaches.
 */
export {
  type Grade,
  type GradeBand,
  GradeLadder,
  GradeRounding,
  Grades,
  gradeOf,
  roundHalfUp1
} from "../scoring/GradeLadder.ts"
