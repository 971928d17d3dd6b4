/**
 * Chain rubric of the demo dataset: 48 questions over the six chain domains.
 * Questions that decide a minimum-viable-chain gate name it (finality,
 * liveness, censorship_resistance, upgrade_safety); the publisher computes
 * `mvc_gates` from them.
 */
import type { TypeRubric } from "./RubricRows.ts"

export const ChainRubric: TypeRubric = {
  entity_type: "chain",
  prefix: "CHAIN",
  domains: [
    {
      domain: "security",
      code: "SEC",
      rows: [
        [
          3,
          "How is finality reached, and how long until a transaction can no longer be reverted?",
          "Probabilistic finality with frequent deep reorganisations",
          "Economic finality within hours, or soft finality only",
          "Deterministic finality within minutes, backed by slashable stake or L1 settlement",
          "finality"
        ],
        [
          3,
          "Has the chain reorganised deeper than its advertised finality in the last 24 months?",
          "Yes, more than once",
          "Once, with a published fix",
          "Never",
          "finality"
        ],
        [
          3,
          "What would an attacker need to halt or revert the chain (stake, hash power, keys)?",
          "A handful of keys or a small amount of stake",
          "A large but plausible coalition of validators",
          "A majority of a large, independent, slashable stake"
        ],
        [
          2,
          "For rollups: are state roots verified by fraud or validity proofs on the settlement layer?",
          "No proof system: state roots are trusted",
          "Proofs exist but are permissioned or behind a whitelist",
          "Permissionless fraud proofs or validity proofs verified on L1"
        ],
        [
          2,
          "Are the proof system or consensus clients audited and covered by a bug bounty?",
          "Neither",
          "Audited, with no bounty or a small one",
          "Audited, with a bounty proportionate to value secured"
        ],
        [
          2,
          "Can users exit to the settlement layer without the operator's cooperation?",
          "No: exits need the operator",
          "Yes, after a delay longer than 7 days",
          "Yes, within the challenge or proving window",
          "censorship_resistance"
        ],
        [
          2,
          "Is slashing implemented and enforced for equivocation?",
          "No slashing",
          "Slashing implemented but never enforced or socialised",
          "Slashing enforced automatically"
        ],
        [
          1,
          "Was a critical consensus or client bug disclosed in the last 12 months, and how was it handled?",
          "Exploited before a fix",
          "Fixed after public disclosure",
          "None, or fixed privately before disclosure"
        ],
        [
          2,
          "Are canonical bridges to the chain secured by the same proofs as the chain itself?",
          "Secured by a separate multisig",
          "Partly secured by chain proofs",
          "Secured by the chain's own proofs"
        ],
        [
          1,
          "Is there a public bug bounty covering consensus and execution clients?",
          "No bounty",
          "Bounty for some clients",
          "Bounty for every client in production"
        ]
      ]
    },
    {
      domain: "decentralization",
      code: "DEC",
      rows: [
        [
          3,
          "How many independent entities control a third of stake or block production?",
          "Fewer than 3",
          "Between 3 and 10",
          "More than 10"
        ],
        [
          2,
          "How many independent client implementations produce blocks, and does any exceed two thirds?",
          "A single client",
          "Several clients, one above two thirds of blocks",
          "Several clients, none above two thirds of blocks"
        ],
        [
          3,
          "Can users force-include transactions if the sequencer or block producers censor them?",
          "No forced inclusion",
          "Forced inclusion with a delay longer than 24 hours",
          "Forced inclusion within 24 hours, or no single party controls inclusion",
          "censorship_resistance"
        ],
        [
          2,
          "Is block production or sequencing permissionless?",
          "A single permissioned operator",
          "A permissioned set of operators",
          "Permissionless",
          "censorship_resistance"
        ],
        [
          2,
          "Are validators or sequencers concentrated in one hosting provider or country?",
          "More than half in one provider",
          "A third to a half in one provider",
          "Less than a third in any provider or country"
        ],
        [
          2,
          "Can anyone run a full node on commodity hardware?",
          "Requires data-centre hardware",
          "Requires a high-end workstation",
          "Runs on commodity hardware"
        ],
        [
          1,
          "Is stake concentrated in the foundation, team or early investors?",
          "Insiders hold a controlling share",
          "Insiders hold a blocking share",
          "Insiders hold less than a blocking share"
        ],
        [
          1,
          "Are public RPC endpoints served by several independent providers?",
          "A single provider",
          "Two or three providers",
          "Many independent providers"
        ],
        [
          1,
          "Is the proposer or sequencer rotated among independent parties?",
          "No rotation",
          "Rotated among affiliated parties",
          "Rotated among independent parties"
        ]
      ]
    },
    {
      domain: "technology",
      code: "TECH",
      rows: [
        [
          2,
          "Is transaction data published where anyone can reconstruct state?",
          "Data withheld by the operator",
          "Data on an external committee or DA layer with weak guarantees",
          "Data on the settlement layer or a DA layer with sampling"
        ],
        [
          2,
          "Is node and client software open source with reproducible builds?",
          "Closed source",
          "Open source without reproducible builds",
          "Open source with reproducible builds"
        ],
        [
          2,
          "How mature are the virtual machine and its tooling (years in production, formal specification)?",
          "Under a year in production",
          "Several years, no formal specification",
          "Several years with a formal specification"
        ],
        [
          2,
          "Are state growth and hardware requirements on a sustainable trajectory?",
          "Growing faster than commodity hardware",
          "Growing, with mitigation planned",
          "Bounded by design (expiry, pruning or statelessness)"
        ],
        [
          1,
          "Is the protocol specified independently of a single implementation?",
          "The code is the only specification",
          "Partial specification",
          "Complete, maintained specification"
        ],
        [
          1,
          "Are the cryptographic primitives standard and peer reviewed?",
          "Custom, unreviewed primitives",
          "Standard primitives with custom constructions",
          "Standard, peer-reviewed primitives"
        ],
        [2, "Are precompiles and system contracts audited?", "Not audited", "Partly audited", "All audited"],
        [
          1,
          "Is there a documented plan to migrate signatures to post-quantum schemes?",
          "No plan",
          "Research stage",
          "Published migration plan with milestones"
        ]
      ]
    },
    {
      domain: "governance",
      code: "GOV",
      rows: [
        [
          3,
          "Is there an exit window (timelock) before protocol upgrades take effect?",
          "Upgrades take effect immediately",
          "An exit window shorter than 7 days",
          "An exit window of 7 days or more, or upgrades only through a hard fork",
          "upgrade_safety"
        ],
        [
          3,
          "Who can upgrade the protocol or its system contracts, and can they do so without notice?",
          "A small multisig, without notice",
          "Governance with notice, plus an emergency path",
          "Only through public governance or social consensus, with notice",
          "upgrade_safety"
        ],
        [
          2,
          "Are emergency powers held by a security council bounded by a public charter and a 75 percent threshold?",
          "Emergency powers without a charter",
          "A charter, with a threshold below 75 percent",
          "A charter and a threshold of 75 percent or more, or no emergency powers",
          "upgrade_safety"
        ],
        [
          2,
          "Are protocol changes decided through a public improvement-proposal process?",
          "Decided privately",
          "Public proposals, private decisions",
          "Public proposals and decisions"
        ],
        [
          1,
          "Are the foundation's treasury and token allocation disclosed?",
          "Not disclosed",
          "Partly disclosed",
          "Fully disclosed and updated"
        ],
        [
          1,
          "Are hard forks coordinated through public testnets and an announcement period?",
          "Unannounced forks",
          "Announced, with a short testnet period",
          "Public testnets and at least four weeks' notice"
        ],
        [
          1,
          "Can governance freeze or blacklist user accounts?",
          "Yes, and it has done so",
          "Yes, but it has never done so",
          "No"
        ]
      ]
    },
    {
      domain: "operational",
      code: "OPS",
      rows: [
        [
          3,
          "Has the chain halted or stopped producing blocks in the last 12 months?",
          "Several halts",
          "One halt, resolved within hours",
          "No halt",
          "liveness"
        ],
        [
          3,
          "Is there a single sequencer or block producer whose failure halts the chain?",
          "Yes, with no fallback",
          "Yes, with a manual fallback",
          "No single point of failure",
          "liveness"
        ],
        [
          2,
          "What was block-production uptime over the last 90 days?",
          "Below 99 percent",
          "Between 99 and 99.9 percent",
          "Above 99.9 percent",
          "liveness"
        ],
        [
          2,
          "Is there a published incident response process and a public status page?",
          "Neither",
          "One of the two",
          "Both"
        ],
        [
          1,
          "Are network upgrades executed without unplanned downtime?",
          "Unplanned downtime at recent upgrades",
          "Minor disruption",
          "No disruption"
        ],
        [1, "Are post-mortems of outages published?", "Never", "Sometimes", "Always"],
        [
          1,
          "Is fee-market behaviour under congestion predictable?",
          "Prolonged spikes and failed inclusions",
          "Occasional spikes",
          "Predictable fees and inclusion"
        ],
        [
          1,
          "Are archive and full-node snapshots available from several sources?",
          "A single source",
          "Two sources",
          "Many independent sources"
        ]
      ]
    },
    {
      domain: "ecosystem",
      code: "ECO",
      rows: [
        [
          2,
          "How much value is secured on the chain, and how has it trended over 12 months?",
          "Small and falling",
          "Moderate or flat",
          "Large and stable or growing"
        ],
        [
          2,
          "Are the major stablecoins issued natively rather than bridged?",
          "Bridged only",
          "One native stablecoin",
          "Several native stablecoins"
        ],
        [
          1,
          "Is developer activity sustained (monthly active developers, commits)?",
          "Declining sharply",
          "Stable",
          "Growing"
        ],
        [1, "Are at least two independent oracle networks live on the chain?", "None", "One", "Two or more"],
        [
          1,
          "Are block explorers and indexers available from independent providers?",
          "A single explorer",
          "Two providers",
          "Several independent providers"
        ],
        [1, "Is the native asset liquid on several venues?", "Illiquid", "A few venues", "Many deep venues"]
      ]
    }
  ]
}
