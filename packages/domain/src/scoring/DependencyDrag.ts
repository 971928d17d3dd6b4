/**
 * Dependency drag (spec part 1 rule 8). An entity is only as safe as what it
 * stands on: a lending protocol on a weaker chain or oracle is held back by it.
 *
 * Model: each dependency d has an exposure e_d in (0, 1] (how much of the
 * entity's risk flows through it) and, when rated, a composite s_d. Its drag is
 *   drag_d = e_d * max(0, intrinsic - s_d)
 * and the headline composite is intrinsic - max_d drag_d: the weakest link
 * pulls the headline toward its own score in proportion to exposure. So the
 * headline never exceeds the intrinsic figure, never goes below 0, and never
 * falls when the intrinsic figure rises (it is a minimum of functions
 * non-decreasing in it). An unrated dependency cannot drag (there is no score
 * to compare); it is flagged instead with has_unrated_dependencies.
 */
import type { EntityType } from "../model/EntityType.ts"

export interface Dependency {
  readonly entity_type: EntityType
  readonly slug: string
  /** The dependency's own published headline composite, or null when it is not rated. */
  readonly composite_score: number | null
  /** Share of the entity's risk that flows through this dependency, in (0, 1]. */
  readonly exposure: number
}

export interface DragResult {
  readonly composite_score: number
  readonly largest_drag: number
  /** `"<type>: <slug>"` of the dependency with the largest drag, or null when nothing drags. */
  readonly largest_drag_hint: string | null
  readonly has_unrated_dependencies: boolean
}

export const applyDrag = (intrinsic: number, dependencies: ReadonlyArray<Dependency>): DragResult => {
  let largest = 0
  let hint: string | null = null
  let unrated = false
  for (const d of dependencies) {
    if (d.composite_score === null) {
      unrated = true
      continue
    }
    const exposure = d.exposure > 1 ? 1 : Math.max(d.exposure, 0)
    const gap = intrinsic - d.composite_score
    const drag = gap > 0 ? exposure * gap : 0
    if (drag > largest) {
      largest = drag
      hint = `${d.entity_type}: ${d.slug}`
    }
  }
  const headline = intrinsic - largest
  return {
    composite_score: Math.max(headline, 0),
    largest_drag: largest,
    largest_drag_hint: hint,
    has_unrated_dependencies: unrated
  }
}
