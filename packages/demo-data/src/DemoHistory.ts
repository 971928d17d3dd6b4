/**
 * Rating history that predates the service: ratings published under the
 * earlier spreadsheet methodology and migrated as history entries. Their
 * version numbers come before the entity's first draft on the service, so the
 * history reads as one sequence. Grades are derived from the figures with the
 * service's own ladder.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"

export interface PastRating {
  readonly version: number
  readonly published_at: string
  readonly composite: number
  readonly intrinsic: number
  readonly reasoning: string
}

export interface PastRatings {
  readonly type: EntityType
  /** The current slug; the id key is the spec's key (renamed entities keep theirs). */
  readonly slug: string
  readonly entries: ReadonlyArray<PastRating>
}

export const MigrationActor = "migration:pre-service-ratings"

export const PreServiceHistory: ReadonlyArray<PastRatings> = [
  {
    type: "chain",
    slug: "ethereum",
    entries: [
      {
        version: 1,
        published_at: "2024-08-01T00:00:00Z",
        composite: 86.4,
        intrinsic: 86.4,
        reasoning: "First rating under the pre-service methodology (v0.8)."
      },
      {
        version: 2,
        published_at: "2025-05-15T00:00:00Z",
        composite: 88.1,
        intrinsic: 88.1,
        reasoning: "Re-rated after the Pectra upgrade; operational evidence refreshed."
      }
    ]
  },
  {
    type: "protocol",
    slug: "aave-v3",
    entries: [
      {
        version: 1,
        published_at: "2024-11-04T00:00:00Z",
        composite: 83.2,
        intrinsic: 84.0,
        reasoning: "First rating under the pre-service methodology (v0.8)."
      },
      {
        version: 2,
        published_at: "2025-06-18T00:00:00Z",
        composite: 84.9,
        intrinsic: 85.6,
        reasoning: "Governance timelock lengthened; security council charter published."
      }
    ]
  },
  {
    type: "protocol",
    slug: "sky",
    entries: [
      {
        version: 1,
        published_at: "2024-09-10T00:00:00Z",
        composite: 78.5,
        intrinsic: 79.3,
        reasoning: "First rating, as MakerDAO (slug makerdao), under the pre-service methodology (v0.8)."
      },
      {
        version: 2,
        published_at: "2025-04-02T00:00:00Z",
        composite: 77.0,
        intrinsic: 77.9,
        reasoning:
          "Re-rated as MakerDAO during the Sky transition: new contracts, shorter time in production."
      }
    ]
  },
  {
    type: "protocol",
    slug: "uniswap-v3",
    entries: [
      {
        version: 1,
        published_at: "2025-03-12T00:00:00Z",
        composite: 85.7,
        intrinsic: 86.0,
        reasoning: "First rating under the pre-service methodology (v0.9)."
      }
    ]
  },
  {
    type: "protocol",
    slug: "lido",
    entries: [
      {
        version: 1,
        published_at: "2025-01-15T00:00:00Z",
        composite: 82.3,
        intrinsic: 82.3,
        reasoning: "First rating under the pre-service methodology (v0.9)."
      }
    ]
  },
  {
    type: "protocol",
    slug: "radiant-capital",
    entries: [
      {
        version: 1,
        published_at: "2024-06-05T00:00:00Z",
        composite: 66.8,
        intrinsic: 68.2,
        reasoning: "First rating under the pre-service methodology (v0.8)."
      },
      {
        version: 2,
        published_at: "2024-10-25T00:00:00Z",
        composite: 31.5,
        intrinsic: 33.0,
        reasoning: "Downgraded after the October 2024 compromise of the multisig signers' devices."
      }
    ]
  },
  {
    type: "bridge",
    slug: "multichain",
    entries: [
      {
        version: 1,
        published_at: "2023-05-10T00:00:00Z",
        composite: 52.4,
        intrinsic: 52.4,
        reasoning: "First rating under the pre-service methodology (v0.7); MPC operator concentration noted."
      },
      {
        version: 2,
        published_at: "2023-07-12T00:00:00Z",
        composite: 8.0,
        intrinsic: 8.0,
        reasoning: "Downgraded to D: unexplained outflows and the operator unreachable; coverage suspended."
      }
    ]
  }
]
