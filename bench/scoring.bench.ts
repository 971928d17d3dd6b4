/**
 * Scoring benchmark: 10,000 scorecards of 300 answers scored by the
 * domain core and, in the same run over the same data, by a hand-written loop.
 * Prints answers per second for both and the ratio; the target is >= 0.8.
 *
 *   npm run bench:scoring            (CARDS=10000 ANSWERS=300 ROUNDS=7 to change)
 */
import { Result } from "effect"
import { scoreEntity } from "@ratings/domain/scoring/ScoreEntity"
import { baselineScore } from "./scoringBaseline.ts"
import { makeCards } from "./scoringData.ts"

const CARDS = Number(process.env.CARDS ?? 10_000)
const ANSWERS = Number(process.env.ANSWERS ?? 300)
const ROUNDS = Number(process.env.ROUNDS ?? 7)

const cards = makeCards(CARDS, ANSWERS)
const totalAnswers = CARDS * ANSWERS

let sink = 0
const runCore = () => {
  for (const card of cards) {
    const r = scoreEntity({
      entity_type: "protocol",
      categories: [],
      answers: card.answers,
      domain_weights: card.domain_weights
    })
    if (Result.isSuccess(r)) sink += r.success.composite_score
  }
}
const runBaseline = () => {
  for (const card of cards) sink += baselineScore(card).composite
}

const time = (f: () => void): number => {
  const t0 = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - t0) / 1e9
}

// Warm both paths so the JIT has compiled them before timing.
runCore()
runBaseline()

const core: number[] = []
const base: number[] = []
for (let i = 0; i < ROUNDS; i++) {
  // Alternate which goes first so neither always runs on a warmer heap.
  if (i % 2 === 0) {
    core.push(time(runCore))
    base.push(time(runBaseline))
  } else {
    base.push(time(runBaseline))
    core.push(time(runCore))
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const coreRate = totalAnswers / median(core)
const baseRate = totalAnswers / median(base)
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

console.log(
  `scoring benchmark: ${fmt(CARDS)} scorecards x ${ANSWERS} answers, median of ${ROUNDS} rounds, node ${process.version}`
)
console.log(`  core (scoreEntity)        ${fmt(coreRate).padStart(14)} answers/s`)
console.log(`  baseline (hand loop)      ${fmt(baseRate).padStart(14)} answers/s`)
console.log(`  ratio core/baseline       ${(coreRate / baseRate).toFixed(2)}  (target >= 0.80)`)
if (sink === 42) console.log("")
