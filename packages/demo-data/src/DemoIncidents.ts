/**
 * Fictional hack-incident reports. Each report is one source's claim; the
 * core derives the served tier from at least two independent sources. The
 * set covers: an incident escalating rumored -> corroborated -> confirmed at
 * a rated protocol, incidents held at each tier, unmatched incidents
 * (protocols that are not rated, one of them in the service but unpublished),
 * the same protocol hit twice a month apart, and one source reporting twice
 * under two spellings of its handle (a single source, never served). Each
 * report is received minutes after its source first saw the hack
 * (received_at) and ingested in that order, so incidents are detected across
 * the months they happened in, not when the demo is loaded.
 */
import { createHash } from "node:crypto"
import type { ImportIncident } from "@ratings/domain/import/ImportFile"
import type { IncidentReport } from "@ratings/domain/model/Incident"

/** A made-up address, stable per label: the demo must not point at real victims. */
const address = (label: string): string =>
  `0x${createHash("sha256").update(`demo-victim:${label}`).digest("hex").slice(0, 40)}`

const FictionalResolution = "Fictional demo incident."

interface Claim {
  readonly nonce: string
  readonly handle: string
  readonly tier: IncidentReport["claimed_tier"]
  readonly at: string
  readonly loss: number | null
  readonly confidence?: number
  readonly url?: string
  readonly victims?: ReadonlyArray<string>
  readonly resolved?: { readonly at: string; readonly resolution: string }
}

const reports = (
  incident: { readonly protocol_name: string; readonly chain: string | null; readonly exploit_class: string },
  claims: ReadonlyArray<Claim>
): ReadonlyArray<IncidentReport> =>
  claims.map((c) => ({
    nonce: c.nonce,
    protocol_name: incident.protocol_name,
    chain: incident.chain,
    exploit_class: incident.exploit_class,
    loss_estimate_usd: c.loss,
    victim_addresses: (c.victims ?? []).map(address),
    source: c.url === undefined ? { handle: c.handle } : { handle: c.handle, url: c.url },
    claimed_tier: c.tier,
    first_seen_at: c.at,
    ...(c.confidence === undefined ? {} : { confidence_bps: c.confidence }),
    ...(c.resolved === undefined ? {} : { resolved_at: c.resolved.at, resolution: c.resolved.resolution })
  }))

/** Minutes between a source first seeing a hack and the service receiving its report: 1 to 12, stable per nonce. */
const lagMinutes = (nonce: string): number =>
  1 + (createHash("sha256").update(`demo-lag:${nonce}`).digest()[0]! % 12)

const received = (report: IncidentReport): ImportIncident => ({
  ...report,
  received_at: new Date(Date.parse(report.first_seen_at) + lagMinutes(report.nonce) * 60_000)
    .toISOString()
    .replace(".000Z", "Z")
})

/** By received_at; reports received at the same instant keep their order. */
const inReceivedOrder = (reports: ReadonlyArray<ImportIncident>): ReadonlyArray<ImportIncident> =>
  [...reports].sort((a, b) => Date.parse(a.received_at!) - Date.parse(b.received_at!))

const claims: ReadonlyArray<IncidentReport> = [
  // Rated protocol, escalating through every tier; two spellings of the name normalise alike.
  ...reports({ protocol_name: "Venus", chain: "BNB Chain", exploit_class: "ORACLE_MANIPULATION" }, [
    {
      nonce: "demo-venus-2609-01",
      handle: "cyvers",
      tier: "rumored",
      at: "2026-09-14T03:12:00Z",
      loss: 1_200_000,
      confidence: 3000,
      victims: ["venus-1"]
    },
    {
      nonce: "demo-venus-2609-02",
      handle: "hypernative",
      tier: "rumored",
      at: "2026-09-14T03:20:00Z",
      loss: null
    },
    {
      nonce: "demo-venus-2609-03",
      handle: "peckshield",
      tier: "corroborated",
      at: "2026-09-14T04:05:00Z",
      loss: 2_400_000,
      confidence: 6500,
      url: "https://example.org/demo/alerts/venus-2609",
      victims: ["venus-1", "venus-2"]
    },
    {
      nonce: "demo-venus-2609-04",
      handle: "Cyvers",
      tier: "corroborated",
      at: "2026-09-14T04:40:00Z",
      loss: 2_100_000
    },
    {
      nonce: "demo-venus-2609-05",
      handle: "venus-team",
      tier: "confirmed",
      at: "2026-09-14T07:30:00Z",
      loss: 2_150_000,
      confidence: 9500,
      url: "https://example.org/demo/post-mortems/venus-2609"
    },
    {
      nonce: "demo-venus-2609-06",
      handle: "@PeckShield",
      tier: "confirmed",
      at: "2026-09-14T08:15:00Z",
      loss: 2_150_000,
      resolved: {
        at: "2026-09-16T12:00:00Z",
        resolution: `${FictionalResolution} Markets reopened after the price feed was replaced.`
      }
    }
  ]),
  // Rated protocol, held at corroborated.
  ...reports({ protocol_name: "Pendle", chain: "Arbitrum One", exploit_class: "PRICE_MANIPULATION" }, [
    {
      nonce: "demo-pendle-2610-01",
      handle: "blockaid",
      tier: "corroborated",
      at: "2026-10-02T15:40:00Z",
      loss: 350_000,
      confidence: 5500,
      victims: ["pendle-1"]
    },
    {
      nonce: "demo-pendle-2610-02",
      handle: "certik",
      tier: "corroborated",
      at: "2026-10-02T16:05:00Z",
      loss: 410_000
    }
  ]),
  // Rated protocol, held at rumored and resolved as a false alarm.
  ...reports({ protocol_name: "Kamino", chain: "Solana", exploit_class: "ACCESS_CONTROL" }, [
    {
      nonce: "demo-kamino-2608-01",
      handle: "defi-alerts",
      tier: "rumored",
      at: "2026-08-21T22:10:00Z",
      loss: null
    },
    {
      nonce: "demo-kamino-2608-02",
      handle: "chain-watch",
      tier: "rumored",
      at: "2026-08-21T22:45:00Z",
      loss: null,
      confidence: 2000,
      resolved: {
        at: "2026-08-22T09:00:00Z",
        resolution: `${FictionalResolution} Not substantiated: the flagged transfers were a planned migration.`
      }
    }
  ]),
  // Not a rated protocol: confirmed, unmatched (slug null).
  ...reports({ protocol_name: "Nebula Lend", chain: "Base", exploit_class: "REENTRANCY" }, [
    {
      nonce: "demo-nebula-2607-01",
      handle: "peckshield",
      tier: "confirmed",
      at: "2026-07-19T11:02:00Z",
      loss: 4_800_000,
      confidence: 9000,
      victims: ["nebula-1", "nebula-2", "nebula-3"]
    },
    {
      nonce: "demo-nebula-2607-02",
      handle: "certik",
      tier: "confirmed",
      at: "2026-07-19T11:30:00Z",
      loss: 4_750_000
    },
    {
      nonce: "demo-nebula-2607-03",
      handle: "blockaid",
      tier: "corroborated",
      at: "2026-07-19T12:10:00Z",
      loss: null
    }
  ]),
  // In the service but not rated (status scoring): unmatched although the name is known.
  ...reports({ protocol_name: "Resolv", chain: "Ethereum", exploit_class: "MINT_LOGIC" }, [
    {
      nonce: "demo-resolv-2610-01",
      handle: "hypernative",
      tier: "confirmed",
      at: "2026-10-20T06:00:00Z",
      loss: 900_000,
      victims: ["resolv-1"]
    },
    {
      nonce: "demo-resolv-2610-02",
      handle: "cyvers",
      tier: "confirmed",
      at: "2026-10-20T06:25:00Z",
      loss: 950_000
    }
  ]),
  // The same unrated protocol hit twice, a month apart: two incidents.
  ...reports({ protocol_name: "Orbit Lend", chain: "Arbitrum One", exploit_class: "FLASH_LOAN" }, [
    {
      nonce: "demo-orbit-2607-01",
      handle: "cyvers",
      tier: "corroborated",
      at: "2026-07-08T09:00:00Z",
      loss: 640_000
    },
    {
      nonce: "demo-orbit-2607-02",
      handle: "hypernative",
      tier: "corroborated",
      at: "2026-07-08T09:35:00Z",
      loss: 700_000
    }
  ]),
  ...reports({ protocol_name: "Orbit Lend", chain: "Arbitrum One", exploit_class: "FLASH_LOAN" }, [
    {
      nonce: "demo-orbit-2608-01",
      handle: "blockaid",
      tier: "rumored",
      at: "2026-08-11T18:00:00Z",
      loss: 120_000
    },
    { nonce: "demo-orbit-2608-02", handle: "certik", tier: "rumored", at: "2026-08-11T18:20:00Z", loss: null }
  ]),
  // One source under two spellings of its handle: a single source, never served at any tier.
  ...reports({ protocol_name: "Crescent Yield", chain: "Ethereum", exploit_class: "FRONTEND_HIJACK" }, [
    {
      nonce: "demo-crescent-2610-01",
      handle: "@DefiWatcher",
      tier: "confirmed",
      at: "2026-10-27T13:00:00Z",
      loss: 75_000,
      victims: ["crescent-1"]
    },
    {
      nonce: "demo-crescent-2610-02",
      handle: " defiwatcher ",
      tier: "confirmed",
      at: "2026-10-27T14:00:00Z",
      loss: 80_000
    }
  ])
]

/** The demo's incident reports, each with when it was received, in the order they were received. */
export const DemoIncidentReports: ReadonlyArray<ImportIncident> = inReceivedOrder(claims.map(received))
