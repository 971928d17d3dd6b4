/**
 * The shape checks that make the scoring core total over any input, however it
 * arrives (plain JavaScript, parsed JSON, a cast): each returns the value, typed,
 * or an `InvalidInput` naming the field at fault and what it must be. Written
 * by hand rather than as schemas, so the core stays free of Schema.
 */
import { Result } from "effect"
import { EntityTypes, isEntityType } from "../model/EntityTypeNames.ts"
import { InvalidInput } from "./ScoringError.ts"

type Checked<A> = Result.Result<A, InvalidInput>

export const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A short description of a value for a message: `null`, `"widget"`, `an array`, `a string`. */
export const describe = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (typeof value === "string") return value.length <= 40 ? JSON.stringify(value) : "a long string"
  return typeof value === "object" ? "an object" : `a ${typeof value}`
}

export const invalid = (field: string, expected: string, value: unknown): InvalidInput =>
  new InvalidInput({
    field,
    message:
      value === undefined
        ? `${field} is missing: it must be ${expected}`
        : `${field} must be ${expected}, got ${describe(value)}`
  })

/** A finite number within [min, max]. */
export const checkNumber = (
  field: string,
  value: unknown,
  min = -Infinity,
  max = Infinity
): Checked<number> =>
  typeof value === "number" && Number.isFinite(value) && value >= min && value <= max
    ? Result.succeed(value)
    : Result.fail(
        invalid(field, min === -Infinity ? "a finite number" : `a finite number from ${min} to ${max}`, value)
      )

export const checkEntityType = (field: string, value: unknown): Checked<(typeof EntityTypes)[number]> =>
  isEntityType(value)
    ? Result.succeed(value)
    : Result.fail(
        new InvalidInput({
          field,
          message:
            typeof value === "string"
              ? `${field} ${describe(value)} is not a known entity type: it is one of ${EntityTypes.join(", ")}`
              : `${field} must be one of ${EntityTypes.join(", ")}, got ${describe(value)}`
        })
      )

export const checkStrings = (field: string, value: unknown): Checked<ReadonlyArray<string>> => {
  if (!Array.isArray(value)) return Result.fail(invalid(field, "an array of strings", value))
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== "string") return Result.fail(invalid(`${field}[${i}]`, "a string", value[i]))
  }
  return Result.succeed(value as ReadonlyArray<string>)
}

/** A map of domain -> number; whether the numbers are valid weights is the weight rules' to say. */
export const checkNumberMap = (
  field: string,
  value: unknown
): Checked<{ readonly [key: string]: number }> => {
  if (!isRecord(value)) return Result.fail(invalid(field, "an object of domain -> number", value))
  for (const key in value) {
    if (typeof value[key] !== "number") return Result.fail(invalid(`${field}.${key}`, "a number", value[key]))
  }
  return Result.succeed(value as { readonly [key: string]: number })
}

/** The fields of an object that are absent (or undefined), in the order given. */
export const missingFields = (value: { readonly [key: string]: unknown }, fields: ReadonlyArray<string>) =>
  fields.filter((f) => value[f] === undefined)

/** `a`, `a and b`, `a, b and c`. */
export const listed = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

/** A map of domain -> weight: each a finite number >= 0 (whether they sum to 100 is not asked here). */
export const checkWeights = (field: string, value: unknown): Checked<{ readonly [key: string]: number }> => {
  if (!isRecord(value)) return Result.fail(invalid(field, "an object of domain -> weight", value))
  for (const key in value) {
    const w = value[key]
    if (typeof w !== "number" || !Number.isFinite(w) || w < 0)
      return Result.fail(invalid(`${field}.${key}`, "a finite number >= 0", w))
  }
  return Result.succeed(value as { readonly [key: string]: number })
}
