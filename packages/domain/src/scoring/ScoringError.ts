/**
 * Typed failures of score composition. Bad input to the core is data, never a
 * defect: an importer reports these to the operator with their reason.
 */
import { Schema } from "effect"

export class DomainWeightsSumError extends Schema.TaggedError<DomainWeightsSumError>()(
  "DomainWeightsSumError",
  {
    sum: Schema.Number,
    message: Schema.String
  }
) {}

export class InvalidDomainWeight extends Schema.TaggedError<InvalidDomainWeight>()("InvalidDomainWeight", {
  domain: Schema.String,
  weight: Schema.Number,
  message: Schema.String
}) {}

export class MissingDomainScore extends Schema.TaggedError<MissingDomainScore>()("MissingDomainScore", {
  domain: Schema.String,
  message: Schema.String
}) {}

export class UnweightedDomain extends Schema.TaggedError<UnweightedDomain>()("UnweightedDomain", {
  domain: Schema.String,
  message: Schema.String
}) {}

export class InvalidDomainScore extends Schema.TaggedError<InvalidDomainScore>()("InvalidDomainScore", {
  domain: Schema.String,
  score: Schema.Number,
  message: Schema.String
}) {}

export class InvalidAnswer extends Schema.TaggedError<InvalidAnswer>()("InvalidAnswer", {
  index: Schema.Number,
  message: Schema.String
}) {}

export class NothingScored extends Schema.TaggedError<NothingScored>()("NothingScored", {
  message: Schema.String
}) {}

export type ScoringError =
  | DomainWeightsSumError
  | InvalidDomainWeight
  | MissingDomainScore
  | UnweightedDomain
  | InvalidDomainScore
  | InvalidAnswer
  | NothingScored
