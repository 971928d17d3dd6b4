/**
 * Which tier each capability needs (spec part 4 tables and part 5 rule 3).
 * The one table of access: the HTTP layer reads it to gate routes.
 *
 * The spec notes that one description labels the bridge questions route Pro
 * while the catalogue lists it Enterprise; part 5 rule 3 puts questions at
 * Enterprise for every type, so bridges follow it.
 */
import { Result, Schema } from "effect"
import { type Caller, type CallerKind, callerKind, type Tier, Tiers } from "../model/Caller.ts"

export const Capabilities = {
  list: "anonymous",
  detail: "anonymous",
  scorecards: "anonymous",
  methodology: "anonymous",
  incidents: "anonymous",
  quantum_readiness: "anonymous",
  domains: "pro",
  history: "pro",
  export: "pro",
  alert_rules: "pro",
  questions: "enterprise",
  rubric: "enterprise",
  evidence: "enterprise",
  scorecard_by_id: "enterprise",
  compare: "enterprise"
} as const satisfies Record<string, Tier>

export type Capability = keyof typeof Capabilities

export const tierRank = (tier: Tier): number => Tiers.indexOf(tier)

/** An admin (identity-provider JWT with role admin or super_admin) holds every capability. */
export const holdsTier = (kind: CallerKind, required: Tier): boolean =>
  kind === "admin" || tierRank(kind) >= tierRank(required)

/** No credentials on a route that needs a key (HTTP 401, `{"detail": {"error": "missing_key"}}`). */
export class MissingKey extends Schema.TaggedError<MissingKey>()("MissingKey", {
  required_tier: Schema.Literals(Tiers)
}) {}

/** A valid key whose tier is below the route's (HTTP 403). */
export class InsufficientTier extends Schema.TaggedError<InsufficientTier>()("InsufficientTier", {
  required_tier: Schema.Literals(Tiers),
  tier: Schema.Literals(Tiers)
}) {}

export type AccessDenied = MissingKey | InsufficientTier

export const authorize = (caller: Caller, capability: Capability): Result.Result<void, AccessDenied> => {
  const required: Tier = Capabilities[capability]
  const kind = callerKind(caller)
  if (holdsTier(kind, required)) return Result.succeed(undefined)
  if (kind === "anonymous") return Result.fail(new MissingKey({ required_tier: required }))
  return Result.fail(new InsufficientTier({ required_tier: required, tier: kind as Tier }))
}

/** What a caller kind may do, for documentation and the capability listing. */
export const capabilitiesOf = (kind: CallerKind): ReadonlyArray<Capability> =>
  (Object.keys(Capabilities) as Array<Capability>).filter((c) => holdsTier(kind, Capabilities[c]))
