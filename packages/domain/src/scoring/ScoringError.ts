/**
 * Typed failures of score composition. Bad input to the core is data, never a
 * defect: an importer reports these to the operator with their reason. They
 * are `Data` errors, not schema classes, so the scoring core loads no Schema
 * and stays small in a browser bundle; none of them is sent over the wire.
 */
import * as Data from "effect/Data"

export class DomainWeightsSumError extends Data.TaggedError("DomainWeightsSumError")<{
  readonly sum: number
  readonly message: string
}> {}

export class InvalidDomainWeight extends Data.TaggedError("InvalidDomainWeight")<{
  readonly domain: string
  readonly weight: number
  readonly message: string
}> {}

export class MissingDomainScore extends Data.TaggedError("MissingDomainScore")<{
  readonly domain: string
  readonly message: string
}> {}

export class UnweightedDomain extends Data.TaggedError("UnweightedDomain")<{
  readonly domain: string
  readonly message: string
}> {}

export class InvalidDomainScore extends Data.TaggedError("InvalidDomainScore")<{
  readonly domain: string
  readonly score: number
  readonly message: string
}> {}

export class InvalidAnswer extends Data.TaggedError("InvalidAnswer")<{
  readonly index: number
  readonly message: string
}> {}

export class NothingScored extends Data.TaggedError("NothingScored")<{
  readonly message: string
}> {}

export type ScoringError =
  | DomainWeightsSumError
  | InvalidDomainWeight
  | MissingDomainScore
  | UnweightedDomain
  | InvalidDomainScore
  | InvalidAnswer
  | NothingScored
