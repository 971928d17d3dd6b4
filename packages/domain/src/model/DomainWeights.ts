/**
 * domain_weights: the percentage-point weight of each domain an entity was
 * actually scored on. Per entity, not per type, and always summing to 100
 * (composite = sum of domain_score x weight), so a reader can recompute it from the
 * same response.
 */
import { Schema } from "effect"
import { NonNegativeNumber } from "./Primitives.ts"
import { sumOfWeights, WeightSumTolerance } from "./WeightSum.ts"

export { sumOfWeights, WeightSumTolerance }

const sumsTo100 = Schema.makeFilter<{ readonly [domain: string]: number }>(
  (weights) => {
    const sum = sumOfWeights(weights)
    return Math.abs(sum - 100) <= WeightSumTolerance
      ? undefined
      : `domain weights must sum to 100, but they sum to ${sum}`
  },
  { expected: "domain weights summing to 100" }
)

export const DomainWeights = Schema.Record(Schema.String, NonNegativeNumber)
  .annotate({
    description:
      "Map from domain to its percentage-point weight (>= 0). Per entity: the domains this entity was scored " +
      "on, always summing to 100. composite = sum of domain_score x weight (divide by 100 when domain " +
      "scores are percentages)."
  })
  .check(sumsTo100)
  .annotate({ identifier: "DomainWeights" })
export type DomainWeights = typeof DomainWeights.Type
