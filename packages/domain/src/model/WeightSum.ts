/**
 * The sum rule of domain weights as plain arithmetic: the tolerance within
 * which a weight map sums to 100, shared by the wire schema (DomainWeights.ts)
 * and the scoring core, which must not load Schema.
 */

/** Weights are decimals; 1e-6 points is far below any published figure. */
export const WeightSumTolerance = 1e-6

export const sumOfWeights = (weights: { readonly [domain: string]: number }): number => {
  let sum = 0
  for (const domain of Object.keys(weights)) sum += weights[domain]!
  return sum
}
