/**
 * Protocol rubric of the demo dataset: 70 questions over the seven protocol
 * domains of the methodology, each with anchored levels 0, 2 and 4.
 */
import type { TypeRubric } from "./RubricRows.ts"

export const ProtocolRubric: TypeRubric = {
  entity_type: "protocol",
  prefix: "PROT",
  domains: [
    {
      domain: "security",
      code: "SEC",
      rows: [
        [
          3,
          "How many independent security audits cover the currently deployed contracts, and how recent is the latest?",
          "No public audit of the deployed code",
          "One audit, or audits older than 18 months or of a different version",
          "Two or more independent audits of the exact deployed version within 12 months"
        ],
        [
          3,
          "Were all critical and high-severity audit findings resolved and the fixes re-reviewed?",
          "Critical or high findings remain open or unacknowledged",
          "Findings fixed, but the fixes were not re-reviewed by an auditor",
          "All findings fixed and confirmed in a follow-up review"
        ],
        [
          2,
          "Is a public bug bounty live, with a maximum payout proportionate to total value locked?",
          "No bug bounty",
          "Bounty exists but its cap is below 1% of TVL or it excludes core contracts",
          "Bounty covers all core contracts with a cap of at least 1% of TVL or USD 1M"
        ],
        [
          2,
          "Are core invariants formally verified or covered by invariant fuzzing that runs in CI?",
          "Neither formal verification nor invariant testing",
          "Invariant or fuzz tests exist but do not run in CI or miss core paths",
          "Core invariants formally verified, or invariant fuzzing on every change"
        ],
        [
          3,
          "Has the protocol suffered a loss of user funds from an exploit in the last 24 months?",
          "Exploit with user losses that were not reimbursed",
          "Exploit with losses fully reimbursed and the root cause fixed",
          "No exploit causing user losses"
        ],
        [
          3,
          "Are privileged roles held by multisigs with a meaningful threshold and independent signers?",
          "A single externally owned account holds admin powers",
          "Multisig with a threshold under 50% or signers that are not independent",
          "Multisig of at least 4-of-7 with public, independent signers, or no privileged roles"
        ],
        [
          3,
          "Are contract upgrades subject to a timelock long enough for users to exit?",
          "Upgrades execute immediately",
          "Timelock shorter than 48 hours, or one a guardian can bypass",
          "Timelock of 48 hours or more with no bypass, or immutable contracts"
        ],
        [
          2,
          "Is there an emergency pause, and is its scope limited to protecting funds?",
          "No pause, or a pause that can also move or seize funds",
          "A pause exists but its scope and holders are not documented",
          "Documented pause that only halts new activity, held by a separate guardian"
        ],
        [
          2,
          "Are the deployed contracts verified on block explorers and traceable to the audited commit?",
          "Unverified contracts in the core path",
          "Verified, but with no mapping from deployment to audited commit",
          "All verified, with a published deployment-to-commit mapping"
        ],
        [
          2,
          "Is there real-time on-chain monitoring with automated alerts for anomalous flows?",
          "No monitoring known",
          "Monitoring exists but raises no automated alert or response",
          "Round-the-clock monitoring with automated alerts and a rehearsed response playbook"
        ],
        [
          1,
          "Are simulations of economic and oracle-manipulation attacks published?",
          "None published",
          "Ad-hoc analyses for some markets",
          "Regular published simulations covering every listed market"
        ],
        [
          2,
          "Are external calls and callbacks guarded against reentrancy and read-only reentrancy?",
          "Known unsafe external call patterns in core contracts",
          "Reviewed in audits only, without dedicated guards or tests",
          "Guarded by design (checks-effects-interactions, locks) and covered by tests"
        ],
        [
          1,
          "Is a security review run before each new market, asset or chain deployment?",
          "No review before listings or deployments",
          "Informal review that is not published",
          "A published review or risk report for every new listing and deployment"
        ],
        [
          2,
          "Is key management of privileged signers documented (hardware wallets, separation of duties)?",
          "Undocumented",
          "Partly documented, or hardware keys for some signers only",
          "Documented policy, hardware-backed keys for all signers, and rotation procedures"
        ]
      ]
    },
    {
      domain: "technology",
      code: "TECH",
      rows: [
        [
          2,
          "Is the full source code of the deployed contracts public under a stated licence?",
          "Closed source",
          "Partly public, or published only after deployment",
          "All deployed code public, with a licence and build instructions"
        ],
        [
          2,
          "How long has the current codebase been live on mainnet without material changes?",
          "Under 3 months",
          "Between 3 and 12 months",
          "Over 12 months"
        ],
        [
          2,
          "How complex is the core design relative to its function (external calls, hooks, upgradeable modules)?",
          "Highly complex, with many hooks and upgradeable modules",
          "Moderately complex, with isolated optional modules",
          "Minimal, well-isolated core"
        ],
        [
          1,
          "Is test coverage of the core contracts reported and above 90 percent?",
          "No coverage report",
          "Coverage reported but below 90 percent",
          "Coverage above 90 percent, reported in CI"
        ],
        [
          2,
          "Are external libraries pinned to audited versions?",
          "Unpinned or modified libraries in the core path",
          "Pinned, but some versions were never audited",
          "All pinned to audited releases, with changes reviewed"
        ],
        [
          1,
          "Is the build and deployment process documented and reproducible?",
          "Not documented",
          "Documented but not reproducible by a third party",
          "Reproducible builds with deployment scripts in the public repository"
        ],
        [
          2,
          "Are upgrades and governance actions simulated on a fork before execution?",
          "No simulation",
          "Simulated for some actions",
          "Every action simulated, with the simulation published alongside the proposal"
        ],
        [
          1,
          "Does the front end decode transaction payloads and warn about unusual approvals?",
          "Blind signing of raw payloads",
          "Decoded for common actions only",
          "Every payload decoded, with warnings for unlimited or unusual approvals"
        ],
        [
          2,
          "Is behaviour under extreme conditions (gas spikes, chain halts, oracle outages) documented and tested?",
          "Not considered",
          "Documented but not tested",
          "Documented and tested in scenario simulations"
        ],
        [
          1,
          "Is the code free of compiler versions and patterns with known bugs?",
          "Uses compiler versions with known critical bugs",
          "Minor known issues, assessed as not exploitable",
          "No known compiler or pattern issues"
        ]
      ]
    },
    {
      domain: "governance",
      code: "GOV",
      rows: [
        [
          3,
          "Who can change protocol parameters, and is that power exercised on-chain?",
          "A team key changes parameters off any public process",
          "On-chain governance with a team override",
          "On-chain governance only, or parameters immutable"
        ],
        [
          2,
          "Is voting power concentrated, with the top 10 voters controlling more than half of votes cast?",
          "One voter can pass proposals alone",
          "Top 10 voters control more than half of votes cast",
          "No group of 10 voters controls half of votes cast"
        ],
        [
          2,
          "Do a voting delay and a quorum protect against flash-loan or surprise governance attacks?",
          "No delay or quorum",
          "Delay or quorum, but not both",
          "Voting delay, snapshot of voting power and a meaningful quorum"
        ],
        [
          2,
          "Are passed proposals executed through a timelock that users can observe?",
          "Executed immediately",
          "Timelock under 48 hours",
          "Timelock of 48 hours or more on every executable proposal"
        ],
        [
          2,
          "Is there a security council or guardian with a published charter and limited powers?",
          "Emergency powers held without a charter",
          "A charter exists but powers are broad",
          "Published charter, narrow powers, and actions reported after use"
        ],
        [
          1,
          "Is voter participation healthy (median turnout over the last 10 votes)?",
          "Median turnout below 2% of supply",
          "Median turnout between 2% and 10% of supply",
          "Median turnout above 10% of supply, or active delegation"
        ],
        [
          1,
          "Are conflicts of interest of delegates and service providers disclosed?",
          "No disclosure",
          "Disclosed for some delegates",
          "Disclosure policy applied to all delegates and service providers"
        ],
        [
          2,
          "Can governance seize or redirect user deposits?",
          "Yes, directly",
          "Only indirectly, through upgrades behind a timelock",
          "No: user deposits are out of governance reach"
        ],
        [
          1,
          "Are treasury holdings and spending reported publicly?",
          "Not reported",
          "Reported irregularly",
          "Reported at least quarterly and reconcilable on-chain"
        ],
        [
          1,
          "Is there a documented process for emergency governance actions and their review?",
          "No process",
          "Process exists but no review after use",
          "Documented process with mandatory public review after every use"
        ]
      ]
    },
    {
      domain: "economic",
      code: "ECON",
      rows: [
        [
          3,
          "Is bad-debt or insolvency risk quantified and covered by reserves or a backstop?",
          "Unquantified and uncovered",
          "Quantified, but reserves cover less than the modelled stress loss",
          "Quantified, with reserves or a backstop above the modelled stress loss"
        ],
        [
          2,
          "Are liquidation mechanisms tested under stressed prices and thin liquidity?",
          "Untested",
          "Tested in simulation only",
          "Tested in simulation and proven in past market stress"
        ],
        [
          2,
          "Are collateral and borrow parameters (LTV, caps) set under a documented risk framework?",
          "Set ad hoc",
          "Framework exists but is not applied consistently",
          "Documented framework applied to every parameter change"
        ],
        [
          2,
          "Does the protocol earn sustainable revenue without relying on token emissions?",
          "Revenue depends on emissions",
          "Revenue covers part of costs and incentives",
          "Revenue exceeds costs and incentives"
        ],
        [
          2,
          "Is value locked concentrated among a few depositors whose exit would impair the protocol?",
          "Top 5 depositors hold more than half",
          "Top 5 depositors hold between 20% and 50%",
          "Top 5 depositors hold less than 20%"
        ],
        [
          1,
          "Are incentive programmes bounded in size and duration?",
          "Open-ended incentives",
          "Bounded in size only",
          "Bounded in size and duration, with published results"
        ],
        [
          2,
          "Are supply and borrow caps in place for volatile or thinly traded assets?",
          "No caps",
          "Caps on some assets",
          "Caps on every volatile or thinly traded asset, reviewed monthly"
        ],
        [
          2,
          "Is more than half of value exposed to a single collateral asset?",
          "More than 75% in one asset",
          "Between 50% and 75% in one asset",
          "Below 50% in any single asset"
        ],
        [
          1,
          "Are interest-rate or fee models documented and reviewed?",
          "Undocumented",
          "Documented but not reviewed",
          "Documented and reviewed at least yearly"
        ],
        [
          1,
          "Has the protocol stayed solvent through past drawdowns of 30 percent or more?",
          "Became insolvent",
          "Stayed solvent with temporary bad debt",
          "Stayed solvent without bad debt"
        ]
      ]
    },
    {
      domain: "operational",
      code: "OPS",
      rows: [
        [
          2,
          "Is an incident response plan published, with named responders and escalation paths?",
          "No plan",
          "Plan exists but is not published",
          "Published plan with named responders, rehearsed at least yearly"
        ],
        [
          2,
          "Has the front end or API been down for more than 4 hours in the last 12 months?",
          "Several outages over 4 hours",
          "One outage over 4 hours",
          "No outage over 4 hours"
        ],
        [
          2,
          "Are keepers, liquidators and other off-chain bots redundant and permissionless?",
          "A single team-run bot",
          "Several bots, all run by the team",
          "Permissionless, with several independent operators"
        ],
        [
          1,
          "Are post-mortems published after incidents?",
          "Never",
          "Sometimes, or only for major incidents",
          "Always, within 14 days"
        ],
        [
          2,
          "Is there a documented process for deploying to new chains, including bridge and oracle review?",
          "No process",
          "Informal process",
          "Documented process with a published review per deployment"
        ],
        [
          1,
          "Is key-person risk in the core team disclosed and mitigated?",
          "One person holds critical knowledge or keys",
          "Some redundancy, undocumented",
          "Documented redundancy for every critical role"
        ],
        [
          1,
          "Is the front end hosted redundantly and protected against DNS hijacking?",
          "Single host, no DNS protection",
          "Some redundancy or protection",
          "IPFS or several hosts, with DNSSEC and registrar lock"
        ],
        [
          2,
          "Can users withdraw directly from the contracts if the front end is unavailable?",
          "No: withdrawals need the front end or an operator",
          "Yes, but undocumented",
          "Yes, with documented direct-withdrawal instructions"
        ],
        [
          1,
          "Is there an on-call rotation covering every time zone?",
          "No on-call",
          "Business hours only",
          "Round-the-clock on-call rotation"
        ]
      ]
    },
    {
      domain: "transparency",
      code: "TRN",
      rows: [
        [
          2,
          "Is technical documentation complete and current with the deployed version?",
          "Missing or outdated",
          "Partly current",
          "Complete and current"
        ],
        [
          2,
          "Are all deployed contract addresses published in one canonical place?",
          "Not published",
          "Published in several places that disagree",
          "One canonical, current list"
        ],
        [
          2,
          "Are audit reports published in full, including findings and responses?",
          "Not published",
          "Summaries only",
          "Full reports with responses"
        ],
        [
          1,
          "Are the core team or the legal entity behind the protocol public?",
          "Anonymous team and no legal entity",
          "Legal entity public, team anonymous",
          "Team and legal entity public"
        ],
        [
          1,
          "Are multisig signer sets published and kept current?",
          "Not published",
          "Published but outdated",
          "Published and current"
        ],
        [
          2,
          "Are risk-parameter changes published with their rationale?",
          "Not published",
          "Published without rationale",
          "Published with rationale before execution"
        ],
        [
          1,
          "Are revenue, fees and treasury flows reported at least quarterly?",
          "Never reported",
          "Reported irregularly",
          "Reported quarterly or more often"
        ],
        [
          1,
          "Are known limitations and risks disclosed to users in the interface?",
          "No disclosure",
          "Disclosed in docs only",
          "Disclosed in the interface at the point of use"
        ],
        [
          1,
          "Is there a public changelog of contract upgrades and parameter changes?",
          "No changelog",
          "Partial changelog",
          "Complete, dated changelog"
        ]
      ]
    },
    {
      domain: "dependencies",
      code: "DEP",
      rows: [
        [
          3,
          "Which oracles does the protocol depend on, and is there a fallback if the primary fails?",
          "A single oracle with no fallback",
          "A primary oracle with a manual fallback",
          "A primary oracle with an automatic, independent fallback"
        ],
        [
          2,
          "Are bridged assets accepted, and is the risk of each bridge assessed?",
          "Bridged assets accepted without assessment",
          "Assessed for some bridges",
          "Every bridge assessed and exposure capped"
        ],
        [
          2,
          "Do liquidations depend on a single chain's sequencer or validator set being live?",
          "Yes, with no sequencer-downtime protection",
          "Yes, with a grace period after downtime",
          "No single point, or a sequencer uptime feed with a grace period"
        ],
        [
          2,
          "Are integrations with other protocols (yield sources, DEX routes) bounded in exposure?",
          "Unbounded exposure",
          "Bounded for some integrations",
          "Every integration bounded and reviewed"
        ],
        [
          2,
          "Does the protocol hold stablecoins whose issuer can freeze its contracts' balances?",
          "Most value in freezable stablecoins, unmitigated",
          "Some exposure, partly mitigated",
          "Low exposure, or diversified with a documented response"
        ],
        [
          1,
          "Are price feeds checked for staleness and deviation on every read?",
          "No checks",
          "Staleness or deviation checked, not both",
          "Both checked on every read"
        ],
        [
          1,
          "Is there a circuit breaker when a dependency behaves abnormally?",
          "None",
          "Manual response only",
          "Automatic circuit breaker, tested"
        ],
        [
          1,
          "Are off-chain dependencies (RPC providers, indexers) redundant?",
          "A single provider",
          "A backup provider, switched manually",
          "Several providers with automatic failover"
        ]
      ]
    }
  ]
}
