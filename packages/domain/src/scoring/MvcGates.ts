/**
 * Minimum-viable-chain gates (spec part 2 Scorecard rule 3: mvc_gates is
 * populated for chains only). A gate is decided by the chain questions tagged
 * with it: it passes when every scored question of the gate reaches at least
 * half of its max_score, and fails when any falls short or none was scored
 * (a gate nobody could check is not passed).
 */
import type { ScorableAnswer } from "./DomainScore.ts"

export const GatePassRatio = 0.5

export interface GatedAnswer extends ScorableAnswer {
  readonly question_id: string
}

/** `gateOf` maps a question id to its gate name, or undefined for questions that decide no gate. */
export const mvcGates = (
  answers: ReadonlyArray<GatedAnswer>,
  gateOf: (questionId: string) => string | null | undefined
): Record<string, boolean> => {
  const gates: Record<string, boolean> = {}
  const scored: Record<string, boolean> = {}
  for (const a of answers) {
    const gate = gateOf(a.question_id)
    if (gate === null || gate === undefined) continue
    if (!(gate in gates)) gates[gate] = true
    if (a.score === null) continue
    scored[gate] = true
    if (a.score / a.max_score < GatePassRatio) gates[gate] = false
  }
  for (const gate of Object.keys(gates)) if (!scored[gate]) gates[gate] = false
  return gates
}
