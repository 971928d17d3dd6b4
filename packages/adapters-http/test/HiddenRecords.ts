/**
 * What each fixture caller may see of a hidden fixture record (fixtures.ts
 * HiddenKinds), and the unknown identifiers a hidden record must answer
 * exactly like: the expectations of the API's leak walk (EntitiesApi.test.ts)
 * and of the MCP tools' (adapters-mcp).
 */
import { type Capability, Capabilities, holdsTier } from "@ratings/domain/access/Capabilities"
import { callerKind } from "@ratings/domain/model/Caller"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { type CallerName, Callers5, type HiddenKind, uuid } from "./fixtures.ts"

/**
 * What each caller may see of a hidden record on each kind of route, by the
 * domain's rules (ADR 0003): private records never list or resolve on detail;
 * inactive ones only for an admin asking include_inactive; draft, scoring and
 * approved ones only for an admin, on every route (a slug must not reveal that
 * a draft exists); framework vaults are listed only for an admin asking
 * include_frameworks; non-published, private and inactive entities resolve on
 * scorecard routes for admins only.
 */
export const isVisible = (
  kind: HiddenKind,
  route: "list" | "detail" | "scorecards",
  caller: CallerName,
  flags: { readonly include_inactive: boolean; readonly include_frameworks: boolean }
): boolean => {
  const admin = caller === "admin"
  if (route === "scorecards") return admin || kind === "framework"
  switch (kind) {
    case "private":
      return false
    case "retired":
      return admin && flags.include_inactive
    case "draft":
    case "scoring":
    case "approved":
      return admin
    case "framework":
      return route === "detail" || (admin && flags.include_frameworks)
  }
}

export const holds = (caller: CallerName, capability: Capability) =>
  holdsTier(callerKind(Callers5[caller]), Capabilities[capability])

export const UnknownSlug = "no-such-entity"
export const UuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const UnknownId = uuid(999_999)
export const UnknownCard = uuid(999_998)

/** The list flags a hidden record is held against: include_frameworks only where it applies (vaults). */
export const flagSets = (type: EntityType) =>
  [
    { include_inactive: false, include_frameworks: false },
    { include_inactive: true, include_frameworks: false },
    ...(type === "vault"
      ? [
          { include_inactive: false, include_frameworks: true },
          { include_inactive: true, include_frameworks: true }
        ]
      : [])
  ] as const
