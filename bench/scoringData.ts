/**
 * Deterministic scorecards for the scoring benchmark: protocols of 300 answers
 * over the seven protocol domains, with some null and not_applicable answers.
 */
import type { ScorableAnswer } from "@ratings/domain/scoring/DomainScore"
import { BaseDomainWeights } from "@ratings/domain/scoring/Methodology"

export interface BenchCard {
  readonly answers: ReadonlyArray<ScorableAnswer>
  readonly domain_weights: { readonly [domain: string]: number }
}

/** mulberry32: a tiny seeded PRNG so every run scores the same data. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export const makeCards = (count: number, answersPerCard: number, seed = 42): BenchCard[] => {
  const next = rng(seed)
  const weights = BaseDomainWeights.protocol
  const domains = Object.keys(weights)
  const cards: BenchCard[] = []
  for (let c = 0; c < count; c++) {
    const answers: ScorableAnswer[] = []
    for (let i = 0; i < answersPerCard; i++) {
      const max = [1, 3, 4, 5, 10][Math.floor(next() * 5)]!
      const roll = next()
      const kind = roll < 0.05 ? "na" : roll < 0.1 ? "null" : "scored"
      answers.push({
        domain: domains[i % domains.length]!,
        score: kind === "scored" ? Math.floor(next() * (max + 1)) : null,
        max_score: max,
        weight: 1 + Math.floor(next() * 3),
        confidence: kind === "na" ? "not_applicable" : "high"
      })
    }
    cards.push({ answers, domain_weights: weights })
  }
  return cards
}
