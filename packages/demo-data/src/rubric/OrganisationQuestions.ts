/**
 * Organisation rubric of the demo dataset: 30 questions over the five
 * organisation domains (curators, validator-set operators and similar).
 */
import type { TypeRubric } from "./RubricRows.ts"

export const OrganisationRubric: TypeRubric = {
  entity_type: "organisation",
  prefix: "ORG",
  domains: [
    {
      domain: "governance",
      code: "GOV",
      rows: [
        [
          2,
          "Are the organisation's legal structure and jurisdiction public?",
          "Unknown",
          "Entity public, jurisdiction unclear",
          "Both public"
        ],
        [
          2,
          "Are decision rights for risk actions documented (who approves what)?",
          "Undocumented",
          "Partly documented",
          "Documented with approval thresholds"
        ],
        [
          2,
          "Is there independent oversight (board, advisory council, external review)?",
          "None",
          "Internal only",
          "Independent"
        ],
        [
          1,
          "Are conflicts of interest disclosed, including token holdings and paid engagements?",
          "Not disclosed",
          "Partly disclosed",
          "Fully disclosed"
        ],
        [1, "Are key-person dependencies mitigated?", "Not mitigated", "Partly", "Mitigated and documented"],
        [1, "Is there a code of conduct for staff trading?", "None", "Informal", "Written and enforced"]
      ]
    },
    {
      domain: "operational",
      code: "OPS",
      rows: [
        [
          2,
          "Is there round-the-clock coverage for monitoring and response?",
          "Business hours",
          "Extended hours",
          "Round the clock"
        ],
        [
          2,
          "Are operational procedures (parameter changes, signer actions) documented and rehearsed?",
          "Undocumented",
          "Documented",
          "Documented and rehearsed"
        ],
        [
          2,
          "Are signing keys held in hardware with separation of duties?",
          "Software keys",
          "Hardware keys",
          "Hardware keys with separation of duties"
        ],
        [
          1,
          "Is monitoring tooling for managed positions in-house and redundant?",
          "None",
          "Third-party only",
          "In-house with redundancy"
        ],
        [
          1,
          "Are vendor and infrastructure dependencies diversified?",
          "Single vendors",
          "Partly",
          "Diversified"
        ],
        [1, "Is there business-continuity planning?", "None", "Informal", "Documented and tested"]
      ]
    },
    {
      domain: "track_record",
      code: "TRK",
      rows: [
        [
          3,
          "How long has the organisation managed risk or capital on-chain?",
          "Under a year",
          "One to three years",
          "Over three years"
        ],
        [
          3,
          "Have positions or vaults it managed suffered losses attributable to its decisions?",
          "Material losses",
          "Minor losses, compensated",
          "None"
        ],
        [
          2,
          "How did it act in past market stress, and is that documented?",
          "Poorly, undocumented",
          "Adequately",
          "Well, with public write-ups"
        ],
        [
          1,
          "Is growth in assets under management organic rather than incentive-driven?",
          "Incentive-driven",
          "Mixed",
          "Organic"
        ],
        [
          1,
          "Have clients or DAOs renewed its engagements?",
          "Not renewed",
          "Some renewals",
          "Consistently renewed"
        ],
        [1, "Has it been subject to regulatory or legal action?", "Yes, unresolved", "Resolved", "Never"]
      ]
    },
    {
      domain: "transparency",
      code: "TRN",
      rows: [
        [
          2,
          "Does it publish regular reports on the positions it manages?",
          "Never",
          "Irregularly",
          "Monthly or more often"
        ],
        [2, "Are the addresses and multisigs it controls published?", "No", "Some", "All"],
        [1, "Are its risk-assessment methodologies public?", "No", "Summaries", "Full methodologies"],
        [1, "Are team members identified?", "Anonymous", "Leadership only", "Team identified"],
        [1, "Are revenues and fee arrangements disclosed?", "No", "Partly", "Fully"],
        [1, "Are incident post-mortems published?", "Never", "Sometimes", "Always"]
      ]
    },
    {
      domain: "security",
      code: "SEC",
      rows: [
        [
          2,
          "Does it have a security policy covering endpoints, accounts and keys?",
          "None",
          "Partial",
          "Comprehensive and audited"
        ],
        [
          2,
          "Has it suffered a compromise of its keys or infrastructure?",
          "Yes, with losses",
          "Yes, contained",
          "Never"
        ],
        [
          2,
          "Are the multisigs it takes part in configured with appropriate thresholds?",
          "Low thresholds",
          "Adequate",
          "Strong thresholds with independent co-signers"
        ],
        [
          1,
          "Is phishing and social-engineering training mandatory for staff?",
          "No",
          "Occasional",
          "Mandatory and recurring"
        ],
        [1, "Are its operations reviewed by third-party security firms?", "Never", "Once", "Regularly"],
        [1, "Is access to production systems logged and reviewed?", "No", "Logged", "Logged and reviewed"]
      ]
    }
  ]
}
