/**
 * Dependency drag. An entity is only as safe as what it
 * stands on: a lending protocol on a weaker chain or oracle is held back by it.
 * Each dependency d has an exposure e_d in (0, 1] and, when rated, a composite
 * s_d; its drag is e_d * max(0, intrinsic - s_d), and the headline composite
 * is intrinsic - max_d drag_d. So the headline never exceeds the intrinsic
 * figure, never goes below 0, and never falls when the intrinsic figure
 * rises. An unrated dependency cannot drag (there is no score to compare); it
 * is flagged instead with has_unrated_dependencies.
 */
import { Result } from "effect"
import { type EntityType, EntityTypes } from "../model/EntityTypeNames.ts"
import * as Decimal from "./Decimal.ts"
import { checkEntityType, invalid, isRecord } from "./InputGuard.ts"
import type { InvalidInput } from "./ScoringError.ts"

export interface Dependency {
  readonly entity_type: EntityType
  readonly slug: string
  /** The dependency's own published headline composite, or null when it is not rated. */
  readonly composite_score: number | null
  /** Share of the entity's risk that flows through this dependency, in (0, 1]. */
  readonly exposure: number
}

/** The dependencies, each with the fields the drag reads, of its type; or the first field that is not. */
export const checkDependencies = (
  field: string,
  value: unknown
): Result.Result<ReadonlyArray<Dependency>, InvalidInput> => {
  if (!Array.isArray(value)) return Result.fail(invalid(field, "an array of dependencies", value))
  for (let i = 0; i < value.length; i++) {
    const d: unknown = value[i]
    const at = `${field}[${i}]`
    if (!isRecord(d)) return Result.fail(invalid(at, "a dependency object", d))
    const type = checkEntityType(`${at}.entity_type`, d.entity_type)
    if (Result.isFailure(type)) return Result.fail(type.failure)
    if (typeof d.slug !== "string") return Result.fail(invalid(`${at}.slug`, "a string", d.slug))
    if (d.composite_score !== null && typeof d.composite_score !== "number")
      return Result.fail(invalid(`${at}.composite_score`, "a number or null", d.composite_score))
    if (typeof d.exposure !== "number") return Result.fail(invalid(`${at}.exposure`, "a number", d.exposure))
  }
  return Result.succeed(value as ReadonlyArray<Dependency>)
}

export interface DragResult {
  readonly composite_score: number
  readonly largest_drag: number
  /** `"<type>: <slug>"` of the dependency with the largest drag, or null when nothing drags. */
  readonly largest_drag_hint: string | null
  readonly has_unrated_dependencies: boolean
}

interface ExactDrag {
  readonly headline: Decimal.Decimal
  readonly largest: Decimal.Decimal
  readonly hint: string | null
  readonly unrated: boolean
}

/** The drag in exact decimal arithmetic on the figures as given (see Decimal.ts). */
const exactDrag = (intrinsic: Decimal.Decimal, dependencies: ReadonlyArray<Dependency>): ExactDrag => {
  let largest = Decimal.zero
  let hint: string | null = null
  let unrated = false
  for (const d of dependencies) {
    if (d.composite_score === null) {
      unrated = true
      continue
    }
    // A figure that is not a finite number cannot drag (NaN compares false, as in the float model).
    if (!Number.isFinite(d.composite_score) || !Number.isFinite(d.exposure)) continue
    const exposure = Decimal.fromNumber(d.exposure > 1 ? 1 : Math.max(d.exposure, 0))
    const gap = Decimal.sub(intrinsic, Decimal.fromNumber(d.composite_score))
    if (Decimal.compare(gap, Decimal.zero) <= 0) continue
    const drag = Decimal.mul(exposure, gap)
    if (Decimal.compare(drag, largest) > 0) {
      largest = drag
      hint = `${d.entity_type}: ${d.slug}`
    }
  }
  const headline = Decimal.sub(intrinsic, largest)
  return {
    headline: Decimal.compare(headline, Decimal.zero) < 0 ? Decimal.zero : headline,
    largest,
    hint,
    unrated
  }
}

export const applyDrag = (intrinsic: number, dependencies: ReadonlyArray<Dependency>): DragResult => {
  const r = exactDrag(Decimal.fromNumber(intrinsic), dependencies)
  return {
    composite_score: Decimal.toNumber(r.headline),
    largest_drag: Decimal.toNumber(r.largest),
    largest_drag_hint: r.hint,
    has_unrated_dependencies: r.unrated
  }
}

/**
 * The published headline: the drag applied to the published (rounded)
 * intrinsic composite and each dependency's published headline, rounded
 * half-up to one decimal. Each published figure is so computed from published
 * figures: the headline from the intrinsic composite a response serves.
 */
export const publishedDrag = (
  publishedIntrinsic: number,
  dependencies: ReadonlyArray<Dependency>
): DragResult => {
  const r = exactDrag(Decimal.fromNumber(publishedIntrinsic), dependencies)
  return {
    composite_score: Decimal.roundHalfUp(r.headline, 1),
    largest_drag: Decimal.toNumber(r.largest),
    largest_drag_hint: r.hint,
    has_unrated_dependencies: r.unrated
  }
}

/** The dependency a hint names, when the hint has the form the scoring writes (`"<type>: <slug>"`). */
export const dragHintTarget = (
  hint: string
): { readonly entity_type: EntityType; readonly slug: string } | undefined => {
  const at = hint.indexOf(": ")
  const type = hint.slice(0, at)
  const slug = hint.slice(at + 2)
  return at > 0 && slug !== "" && (EntityTypes as ReadonlyArray<string>).includes(type)
    ? { entity_type: type as EntityType, slug }
    : undefined
}

/** A hint that gives the dependency's type without its name (the form api-facts shows: "largest drag: oracle"). */
export const typeOnlyDragHint = (type: EntityType): string => `largest drag: ${type}`
