/**
 * Bridges: four universal domains plus one domain per
 * category the bridge carries, renormalised to 100; one 62-question catalogue
 * in canonical order, of which each bridge answers the universal questions and
 * those of its own categories.
 */
import { Result } from "effect"
import type { DomainWeightMap } from "./Composite.ts"
import { BaseDomainWeights } from "./Methodology.ts"
import { renormalise } from "./Renormalise.ts"

/** Bridge category (lowercase, as carried in `categories`) -> the domain it adds. */
export const BridgeCategoryDomains = {
  messaging: "message_verification",
  "lock-and-mint": "custody",
  "liquidity-network": "liquidity",
  "intent-based": "solver_network",
  "light-client": "proof_verification"
} as const
export type BridgeCategory = keyof typeof BridgeCategoryDomains
export const BridgeCategories = Object.keys(BridgeCategoryDomains) as ReadonlyArray<BridgeCategory>

/** Raw weight of each category domain before renormalisation with the universal four (30/25/25/20). */
export const BridgeCategoryDomainWeight = 20

export const isBridgeCategory = (c: string): c is BridgeCategory =>
  typeof c === "string" && Object.hasOwn(BridgeCategoryDomains, c)

/** The active domains of a bridge with these categories, renormalised to 100. Unknown categories add nothing. */
export const bridgeDomainWeights = (categories: ReadonlyArray<string>): DomainWeightMap => {
  const raw: Record<string, number> = { ...BaseDomainWeights.bridge }
  for (const c of categories) {
    const lower = c.toLowerCase()
    if (isBridgeCategory(lower)) raw[BridgeCategoryDomains[lower]] = BridgeCategoryDomainWeight
  }
  return renormalise(raw)
}

export interface BridgeQuestion {
  readonly id: string
  readonly domain: string
  readonly position: number
  readonly text: string
  readonly weight: number
}

const q = (prefix: string, domain: string, texts: ReadonlyArray<readonly [string, number]>) =>
  texts.map(([text, weight], i) => ({
    id: `${prefix}-${String(i + 1).padStart(2, "0")}`,
    domain,
    text,
    weight
  }))

const catalogue = [
  ...q("BRG-SEC", "security", [
    [
      "Have the bridge contracts been audited by at least two independent firms within the last 12 months?",
      3
    ],
    ["Were all critical and high audit findings fixed and the fixes re-reviewed?", 3],
    ["Is a public bug bounty live with a maximum payout proportionate to value secured?", 2],
    ["Are upgrades to bridge contracts gated by a timelock of at least 48 hours?", 3],
    ["Is the upgrade authority a multisig or DAO rather than a single key?", 3],
    ["Are per-transaction and per-period withdrawal rate limits enforced on-chain?", 2],
    ["Has the bridge operated without a loss of user funds since launch?", 3],
    ["Is there formal verification or fuzzing coverage of message-handling code?", 1]
  ]),
  ...q("BRG-VAL", "validator_set", [
    ["Is the size of the signing or validator set publicly documented?", 2],
    ["Does the signing threshold require a supermajority of the set?", 3],
    ["Are the signer identities or operators public?", 2],
    ["Are signers operated by independent organisations in separate jurisdictions?", 3],
    ["Is signer key material held in HSMs or MPC with documented procedures?", 2],
    ["Can the set be rotated without a contract upgrade?", 1],
    ["Is membership of the set permissionless or governed by a transparent process?", 2],
    ["Are validators economically bonded with slashable stake?", 2]
  ]),
  ...q("BRG-OPS", "operational", [
    ["Is there real-time monitoring of mint/burn and lock/unlock invariants?", 3],
    ["Is an incident response plan published with named responders?", 2],
    ["Does the bridge have an emergency pause that can act within minutes?", 3],
    ["Is the pause authority separate from the upgrade authority?", 2],
    ["Are relayers redundant so that one relayer outage does not halt transfers?", 2],
    ["Is uptime over the last 90 days above 99.5 percent?", 1],
    ["Are post-mortems published for past incidents?", 1],
    ["Are off-chain components open source and reproducibly built?", 2]
  ]),
  ...q("BRG-GOV", "governance", [
    ["Are governance powers over the bridge documented in one public place?", 2],
    ["Do parameter changes go through on-chain governance with a voting delay?", 2],
    ["Is token-holder or DAO control free from a single dominant holder?", 2],
    ["Are admin actions emitted as on-chain events and indexed publicly?", 1],
    ["Is there a security council with a published charter and limited powers?", 2],
    ["Are fee and parameter changes announced before they take effect?", 1],
    ["Is the legal entity operating the bridge identified?", 1],
    ["Is there a documented process for sunsetting supported chains or assets?", 1]
  ]),
  ...q("BRG-MSG", "message_verification", [
    ["Are messages verified by a mechanism independent of the relayer?", 3],
    ["Is replay of a message prevented across chains and nonces?", 3],
    ["Are message payload formats versioned and validated on receipt?", 2],
    ["Is there an attestation step before message execution?", 2],
    ["Can a receiving application set its own verification requirements?", 1],
    ["Is a fraud or challenge window applied to optimistic messages?", 2]
  ]),
  ...q("BRG-CUS", "custody", [
    ["Is locked collateral held in contracts rather than in externally owned accounts?", 3],
    ["Is the backing of minted assets provable on-chain at any time?", 3],
    ["Are minted supplies capped per destination chain?", 2],
    ["Is collateral segregated per asset rather than pooled?", 1],
    ["Is the escrow contract immutable or behind the same timelock as upgrades?", 2],
    ["Is there an independent proof-of-reserves attestation published regularly?", 2]
  ]),
  ...q("BRG-LIQ", "liquidity", [
    ["Is pool liquidity sufficient for the 99th percentile transfer size?", 2],
    ["Are liquidity provider withdrawals subject to notice to avoid bank runs?", 1],
    ["Is rebalancing between chains automated and monitored?", 2],
    ["Are slippage and fee bounds enforced on-chain for users?", 2],
    ["Is LP capital protected from loss by insurance or a reserve fund?", 1],
    ["Is liquidity concentrated in fewer than five providers?", 2]
  ]),
  ...q("BRG-SOL", "solver_network", [
    ["Is the solver or filler set open to new participants?", 2],
    ["Are solvers bonded so that failed fills are compensated?", 2],
    ["Is user intent settlement verified on the origin chain?", 3],
    ["Are fill deadlines enforced with refunds on expiry?", 2],
    ["Is solver concentration monitored and published?", 1],
    ["Can a solver front-run or censor user intents without penalty?", 2]
  ]),
  ...q("BRG-PRF", "proof_verification", [
    ["Are consensus proofs of the source chain verified on the destination chain?", 3],
    ["Has the light-client or proof verifier been audited separately?", 2],
    ["Is the verifier upgradable only through a timelocked process?", 2],
    ["Are header updates permissionless to submit?", 1],
    ["Is the proving system's trusted setup, if any, documented and multi-party?", 2],
    ["Are verification costs bounded so that proofs cannot be priced out?", 1]
  ])
] as const

/** The 62-question bridge catalogue in canonical order (position 1..62). */
export const BridgeQuestionCatalogue: ReadonlyArray<BridgeQuestion> = catalogue.map((x, i) => ({
  ...x,
  position: i + 1
}))

export const BridgeQuestionCount = 62

/** Why a bridge question list is not the catalogue, or success. The list must be the 62 ids in canonical order. */
export const checkBridgeQuestionList = (ids: ReadonlyArray<string>): Result.Result<void, string> => {
  if (ids.length !== BridgeQuestionCount) {
    return Result.fail(
      `a bridge question list has ${BridgeQuestionCount} questions, this one has ${ids.length}`
    )
  }
  for (let i = 0; i < ids.length; i++) {
    const expected = BridgeQuestionCatalogue[i]!.id
    if (ids[i] !== expected) {
      return Result.fail(`bridge question ${i + 1} must be ${expected} (canonical order), found ${ids[i]}`)
    }
  }
  return Result.succeed(undefined)
}
