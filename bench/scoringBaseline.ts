/**
 * The baseline of the scoring benchmark: the straightforward hand-written loop
 * a developer would write for the same figures (domain scores rounded to 4
 * decimals, composite over the domains that fired, half-up rounding, grade),
 * without validation, typed errors, drag or the Result wrapper the core adds.
 */
import type { BenchCard } from "./scoringData.ts"

const ladder: ReadonlyArray<readonly [string, number]> = [
  ["AAA", 95],
  ["AA", 85],
  ["A", 75],
  ["BBB", 65],
  ["B", 50],
  ["C", 35],
  ["D", 0]
]

export const baselineScore = (card: BenchCard): { composite: number; grade: string } => {
  const num = new Map<string, number>()
  const den = new Map<string, number>()
  for (const a of card.answers) {
    if (a.score === null || a.domain === null) continue
    num.set(a.domain, (num.get(a.domain) ?? 0) + (a.weight * a.score) / a.max_score)
    den.set(a.domain, (den.get(a.domain) ?? 0) + a.weight)
  }
  let total = 0
  let weightSum = 0
  for (const [d, sum] of den) {
    const w = card.domain_weights[d] ?? 0
    // Domain scores are published to 4 decimals and the composite is computed from those.
    total += (Math.round((num.get(d)! / sum) * 10_000) / 10_000) * w
    weightSum += w
  }
  const composite = Math.floor((total / weightSum) * 1000 + 0.5 + 1e-9) / 10
  let grade = "D"
  for (const [g, min] of ladder) {
    if (composite >= min) {
      grade = g
      break
    }
  }
  return { composite, grade }
}
