/**
 * Who is calling (spec part 5): anonymous, an API key of a tier, or an admin
 * authenticated by a bearer JWT from the identity provider.
 */
import { Schema } from "effect"

/** The access tiers of spec part 1 rule 3, lowest first. */
export const Tiers = ["anonymous", "free", "pro", "enterprise"] as const
export type Tier = (typeof Tiers)[number]
export const Tier = Schema.Literals(Tiers)

/** Tiers an API key can be issued at. */
export const KeyTiers = ["free", "pro", "enterprise"] as const
export type KeyTier = (typeof KeyTiers)[number]
export const KeyTier = Schema.Literals(KeyTiers)

export const AdminRoles = ["admin", "super_admin"] as const
export type AdminRole = (typeof AdminRoles)[number]

export type Caller =
  | { readonly _tag: "Anonymous"; readonly ip: string }
  | {
      readonly _tag: "ApiKey"
      readonly tier: KeyTier
      readonly account_id: string
      readonly key_id: string
    }
  | { readonly _tag: "Admin"; readonly subject: string; readonly role: AdminRole }

export const Caller = {
  anonymous: (ip: string): Caller => ({ _tag: "Anonymous", ip }),
  apiKey: (tier: KeyTier, account_id: string, key_id: string): Caller => ({
    _tag: "ApiKey",
    tier,
    account_id,
    key_id
  }),
  admin: (subject: string, role: AdminRole): Caller => ({ _tag: "Admin", subject, role })
}

/** The kind of caller the projection rules speak of: the four tiers plus admin. */
export type CallerKind = Tier | "admin"

export const callerKind = (caller: Caller): CallerKind =>
  caller._tag === "Anonymous" ? "anonymous" : caller._tag === "ApiKey" ? caller.tier : "admin"

/** An API key record as listed to its owner (the secret itself is never stored or shown again). */
export const ApiKeyInfo = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  tier: KeyTier,
  account_id: Schema.String,
  prefix: Schema.String.annotate({ description: "First characters of the key, to recognise it" }),
  created_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String)
})
export type ApiKeyInfo = typeof ApiKeyInfo.Type
