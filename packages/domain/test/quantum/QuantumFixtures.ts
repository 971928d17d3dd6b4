/**
 * Upstream rows and service chains shared by the quantum-readiness tests,
 * shaped like the LayerQu rows in api-facts.
 */
import type { ServiceChain } from "../../src/quantum/QuantumRows.ts"

export const ethereumRow = {
  slug: "ethereum",
  name: "Ethereum",
  profile: "L1",
  qri: 25,
  band: 2,
  band_label: "Acknowledged",
  stage: 2,
  hybrid: "FAIL",
  danger: false,
  ci: 5
}

export const solanaRow = {
  slug: "solana",
  name: "Solana",
  profile: "L1",
  qri: 40,
  band: 3,
  band_label: "Planning",
  stage: 1,
  hybrid: "PARTIAL",
  danger: null,
  ci: 7
}

export const arbitrumRow = {
  slug: "arb1",
  name: "Arbitrum One",
  profile: "L2",
  qri: 12.5,
  band: 1,
  band_label: "Unaware",
  stage: 0,
  hybrid: "FAIL",
  danger: true,
  ci: null
}

/** Listed by the source, but without the figures clients need (qri, band, stage). */
export const unscoredRow = {
  slug: "tron",
  name: "Tron",
  profile: "L1",
  qri: null,
  band: null,
  band_label: null,
  stage: null,
  hybrid: "UNKNOWN",
  danger: null,
  ci: null
}

export const goodRows = [ethereumRow, solanaRow, arbitrumRow, unscoredRow]

export const chains: ReadonlyArray<ServiceChain> = [
  { slug: "ethereum", name: "Ethereum", status: "published" },
  { slug: "solana", name: "Solana", status: "draft" },
  { slug: "arbitrum-one", name: "Arbitrum One", status: "scoring" },
  { slug: "tron", name: "TRON", status: "approved" },
  { slug: "base", name: "Base", status: "published" }
]
