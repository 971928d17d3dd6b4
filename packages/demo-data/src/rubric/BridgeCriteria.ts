/**
 * Rubric levels for the 62-question bridge catalogue. The questions, their
 * domains, weights and canonical order come from the core (BridgeRubric.ts);
 * the demo only adds the criteria text, levels 0, 2 and 4 of a maximum of 4.
 */

export const BridgeCriteria: { readonly [questionId: string]: readonly [string, string, string] } = {
  "BRG-SEC-01": [
    "No audit",
    "One audit, or audits older than 12 months",
    "Two or more independent audits within 12 months"
  ],
  "BRG-SEC-02": ["Critical findings open", "Fixed without re-review", "All fixed and re-reviewed"],
  "BRG-SEC-03": [
    "No bounty",
    "Bounty capped well below value secured",
    "Bounty proportionate to value secured"
  ],
  "BRG-SEC-04": ["Upgrades take effect at once", "Timelock under 48 hours", "Timelock of 48 hours or more"],
  "BRG-SEC-05": [
    "A single key",
    "A small multisig of one organisation",
    "A multisig with independent signers, or a DAO"
  ],
  "BRG-SEC-06": [
    "No rate limits",
    "Limits on some routes or assets",
    "Per-transaction and per-period limits on every route"
  ],
  "BRG-SEC-07": ["Lost user funds, not reimbursed", "Lost user funds, reimbursed", "No loss of user funds"],
  "BRG-SEC-08": [
    "Neither",
    "Fuzzing of some handlers",
    "Formal verification or full fuzzing of message handling"
  ],
  "BRG-VAL-01": ["Undocumented", "Documented, not kept current", "Documented and current"],
  "BRG-VAL-02": ["A minority threshold", "A simple majority", "A supermajority of two thirds or more"],
  "BRG-VAL-03": ["Anonymous", "Some identified", "All identified"],
  "BRG-VAL-04": [
    "One organisation",
    "Several organisations, one jurisdiction",
    "Independent organisations across jurisdictions"
  ],
  "BRG-VAL-05": ["Software keys", "HSM or MPC for some signers", "HSM or MPC for all signers, documented"],
  "BRG-VAL-06": [
    "Only through an upgrade",
    "Through a privileged call",
    "Through a governed, timelocked rotation"
  ],
  "BRG-VAL-07": [
    "Closed and opaque",
    "Closed, documented process",
    "Permissionless or transparently governed"
  ],
  "BRG-VAL-08": ["Unbonded", "Bonded, not slashable", "Bonded and slashable"],
  "BRG-OPS-01": ["No monitoring", "Periodic checks", "Real-time invariant monitoring with alerts"],
  "BRG-OPS-02": ["No plan", "Plan not published", "Published plan with named responders"],
  "BRG-OPS-03": ["No pause", "Pause that takes hours", "Pause within minutes"],
  "BRG-OPS-04": ["Same key holds both", "Partly separated", "Fully separated"],
  "BRG-OPS-05": [
    "A single relayer",
    "Several relayers run by one operator",
    "Independent, permissionless relayers"
  ],
  "BRG-OPS-06": ["Below 99 percent", "Between 99 and 99.5 percent", "Above 99.5 percent"],
  "BRG-OPS-07": ["Never", "Sometimes", "Always"],
  "BRG-OPS-08": ["Closed source", "Open source, not reproducible", "Open source with reproducible builds"],
  "BRG-GOV-01": ["Undocumented", "Scattered across sources", "Documented in one public place"],
  "BRG-GOV-02": [
    "Changed by admin at will",
    "Governance without delay",
    "On-chain governance with a voting delay"
  ],
  "BRG-GOV-03": ["One holder controls votes", "A few holders control votes", "No dominant holder"],
  "BRG-GOV-04": ["Not emitted", "Emitted, not indexed", "Emitted and publicly indexed"],
  "BRG-GOV-05": [
    "No council or charter",
    "Council without charter",
    "Council with a published charter and limited powers"
  ],
  "BRG-GOV-06": ["Never announced", "Sometimes announced", "Always announced in advance"],
  "BRG-GOV-07": ["Unknown", "Partly identified", "Identified"],
  "BRG-GOV-08": ["None", "Ad hoc", "Documented process"],
  "BRG-MSG-01": [
    "Relayer-trusted",
    "A committee separate from the relayer",
    "Cryptographic verification independent of the relayer"
  ],
  "BRG-MSG-02": ["Replay possible", "Prevented on some routes", "Prevented across chains and nonces"],
  "BRG-MSG-03": ["Unversioned", "Versioned, not validated", "Versioned and validated on receipt"],
  "BRG-MSG-04": ["No attestation", "Optional attestation", "Mandatory attestation"],
  "BRG-MSG-05": ["Fixed by the bridge", "Limited options", "Configurable per application"],
  "BRG-MSG-06": ["No window", "A short window", "A window long enough for independent challengers"],
  "BRG-CUS-01": [
    "Held by externally owned accounts",
    "Contracts with admin withdrawal",
    "Contracts without admin withdrawal"
  ],
  "BRG-CUS-02": ["Not provable", "Provable with effort", "Provable on-chain at any time"],
  "BRG-CUS-03": ["No caps", "Caps on some chains", "Caps on every destination chain"],
  "BRG-CUS-04": ["Pooled", "Partly segregated", "Segregated per asset"],
  "BRG-CUS-05": ["Upgradeable at once", "Timelocked", "Immutable or behind the upgrade timelock"],
  "BRG-CUS-06": ["None", "Irregular", "Regular independent attestation"],
  "BRG-LIQ-01": ["Insufficient", "Sufficient for median transfers", "Sufficient for the 99th percentile"],
  "BRG-LIQ-02": ["Instant exits, run risk", "Some notice", "Notice periods sized to pool depth"],
  "BRG-LIQ-03": ["Manual", "Automated, unmonitored", "Automated and monitored"],
  "BRG-LIQ-04": ["No bounds", "Bounds in the interface only", "Bounds enforced on-chain"],
  "BRG-LIQ-05": ["Unprotected", "Partly protected", "Protected by insurance or a reserve fund"],
  "BRG-LIQ-06": ["Fewer than five providers hold most", "Moderately concentrated", "Broadly distributed"],
  "BRG-SOL-01": ["Closed", "By application", "Open"],
  "BRG-SOL-02": ["Unbonded", "Bonded, partial cover", "Bonded with full compensation"],
  "BRG-SOL-03": ["Not verified", "Verified off-chain", "Verified on the origin chain"],
  "BRG-SOL-04": ["No deadlines", "Deadlines without refunds", "Deadlines with automatic refunds"],
  "BRG-SOL-05": ["Not monitored", "Monitored internally", "Monitored and published"],
  "BRG-SOL-06": ["Yes, without penalty", "Partly mitigated", "No: penalised or impossible by design"],
  "BRG-PRF-01": ["Not verified", "Partly verified", "Fully verified on the destination chain"],
  "BRG-PRF-02": ["Not audited", "Audited with the bridge", "Audited separately"],
  "BRG-PRF-03": ["Upgradeable at once", "Short timelock", "Timelocked process"],
  "BRG-PRF-04": ["Permissioned", "Permissioned with fallback", "Permissionless"],
  "BRG-PRF-05": [
    "Undocumented single-party setup",
    "Documented, few parties",
    "Documented multi-party setup, or no trusted setup"
  ],
  "BRG-PRF-06": ["Unbounded", "Usually bounded", "Bounded"]
}
