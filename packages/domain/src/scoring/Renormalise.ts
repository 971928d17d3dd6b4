/**
 * Renormalising a set of non-negative weights to exactly 100 percentage points.
 * Weights are rounded to 1e-6 points and the rounding residue is given to the
 * largest weight (of equal largest ones, the first by name, so the result does
 * not depend on the order the map lists them in), so published maps sum to
 * exactly 100 in decimal and the composite of a reader who recomputes it from
 * the same response matches.
 */
import type { DomainWeightMap } from "./Composite.ts"

const PRECISION = 1e6

export const renormalise = (weights: DomainWeightMap): DomainWeightMap => {
  const keys = Object.keys(weights)
  let total = 0
  for (const k of keys) total += weights[k]!
  if (total <= 0) return {}
  const out: Record<string, number> = {}
  let units = 0
  let largest: string | undefined
  for (const k of keys) {
    const w = Math.round((weights[k]! / total) * 100 * PRECISION)
    out[k] = w
    units += w
    if (largest === undefined || w > out[largest]! || (w === out[largest]! && k < largest)) largest = k
  }
  if (largest !== undefined) out[largest] = out[largest]! + (100 * PRECISION - units)
  for (const k of keys) out[k] = out[k]! / PRECISION
  return out
}
