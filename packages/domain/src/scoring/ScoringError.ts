/**
 * Typed failures of score composition. Bad input to the core is data, never a
 * defect: an importer reports these to the operator with their reason, and
 * each names the field at fault (`answers[2].score`, `domain_weights.security`).
 * They are `Data` errors, not schema classes, so the scoring core loads no
 * Schema and stays small in a browser bundle; none of them is sent over the wire.
 */
import * as Data from "effect/Data"

/** Input of the wrong shape: a missing field, a value of the wrong type, an unknown entity type. */
export class InvalidInput extends Data.TaggedError("InvalidInput")<{
  readonly field: string
  readonly message: string
}> {}

export class DomainWeightsSumError extends Data.TaggedError("DomainWeightsSumError")<{
  readonly field: string
  readonly sum: number
  readonly message: string
}> {}

export class InvalidDomainWeight extends Data.TaggedError("InvalidDomainWeight")<{
  readonly field: string
  readonly domain: string
  readonly weight: number
  readonly message: string
}> {}

export class MissingDomainScore extends Data.TaggedError("MissingDomainScore")<{
  readonly field: string
  readonly domain: string
  readonly message: string
}> {}

export class UnweightedDomain extends Data.TaggedError("UnweightedDomain")<{
  readonly field: string
  readonly domain: string
  readonly message: string
}> {}

export class InvalidDomainScore extends Data.TaggedError("InvalidDomainScore")<{
  readonly field: string
  readonly domain: string
  readonly score: number
  readonly message: string
}> {}

export class InvalidAnswer extends Data.TaggedError("InvalidAnswer")<{
  readonly field: string
  readonly index: number
  readonly message: string
}> {}

export class NothingScored extends Data.TaggedError("NothingScored")<{
  readonly field: string
  readonly message: string
}> {}

export type ScoringError =
  | InvalidInput
  | DomainWeightsSumError
  | InvalidDomainWeight
  | MissingDomainScore
  | UnweightedDomain
  | InvalidDomainScore
  | InvalidAnswer
  | NothingScored
