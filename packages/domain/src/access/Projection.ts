/**
 * What each caller sees (spec part 2 "Visibility", part 4 scorecard list rule,
 * part 5 rule 4): pure functions over plain records, built on the readable
 * rule (Readable.ts), and the `Projection` service over them (with
 * Capabilities.ts), which use cases and handlers read with `yield* Projection`.
 * Stores call the functions themselves, because there a rule is part of the
 * query they run, not a use case's choice; the property tests check them too.
 * Callers of one `projectionClassOf` share a cached answer.
 */
import { Context, Layer } from "effect"
import { type Caller, type CallerKind, callerKind } from "../model/Caller.ts"
import type { EntityType } from "../model/EntityType.ts"
import type { ScorecardStatus } from "../model/Scorecard.ts"
import { authorize, capabilitiesOf } from "./Capabilities.ts"
import { holdsFields, isReadable, type ReadableRecord, requiredFields } from "./Readable.ts"

export interface VisibleRecord extends ReadableRecord {
  /** Vaults only: a framework-tier vault, listed only through the admin bypass. */
  readonly is_framework?: boolean | undefined
}

export interface ScorecardLike {
  readonly status: ScorecardStatus
  readonly scorecard_version: number
  readonly domain_scores: unknown
  readonly mvc_gates: unknown
}

export interface ListFlags {
  readonly include_inactive: boolean
  readonly include_frameworks: boolean
  /** Admins see draft, scoring and approved entities; everyone else sees published ones only. */
  readonly include_unpublished: boolean
}

/** The list flags of every caller but an admin: what the public lists, exports and compare show. */
export const PublicListFlags: ListFlags = {
  include_inactive: false,
  include_frameworks: false,
  include_unpublished: false
}

export const isAdmin = (caller: Caller): boolean => caller._tag === "Admin"

/**
 * Part 5 rule 4: include_inactive (and, for vaults, include_frameworks) count only
 * with an admin JWT; for anyone else they are silently ignored.
 */
export const effectiveListFlags = (
  caller: Caller,
  requested: {
    readonly include_inactive?: boolean | undefined
    readonly include_frameworks?: boolean | undefined
  }
): ListFlags =>
  isAdmin(caller)
    ? {
        include_inactive: requested.include_inactive === true,
        include_frameworks: requested.include_frameworks === true,
        include_unpublished: true
      }
    : PublicListFlags

/**
 * Part 2 "Visibility": lists hide private and inactive records and, for
 * non-admins, unpublished ones (part 3 and part 5 rule 4: a slug must not
 * reveal that a draft exists). The admin bypass shows inactive records (the
 * spec's words) and unpublished ones; private records stay out of lists.
 */
export const isListed = (record: VisibleRecord, flags: ListFlags): boolean =>
  holdsFields(record, requiredFields(flags)) && (record.is_framework !== true || flags.include_frameworks)

/** Detail lookups 404 for private or inactive (or, for non-admins, unpublished) records, unless bypassed. */
export const isDetailVisible = (
  record: VisibleRecord,
  flags: Pick<ListFlags, "include_inactive" | "include_unpublished">
): boolean => holdsFields(record, requiredFields(flags))

/**
 * Scorecard routes and per-entity data: a non-published entity resolves to 404
 * for non-admin callers, exactly like an unknown slug, so nothing reveals that a
 * draft exists (part 3, part 5 rule 4). Hidden records 404 as on detail.
 */
export const areScorecardsVisible = (caller: Caller, record: VisibleRecord): boolean =>
  isAdmin(caller) || isPubliclyReadable(record)

/**
 * Whether anyone without the admin bypass can read the entity through the API
 * at this moment (its detail, its scorecards): published, active and not
 * private. Webhook events name only such entities, and public records embed
 * only such chains (docs/adr/0003-access-and-lists.md).
 */
export const isPubliclyReadable = (record: VisibleRecord): boolean => isReadable(record)

/** Whether scorecards of this type carry mvc_gates at all (part 2 Scorecard rule 3: chains only). */
export const hasMvcGates = (type: EntityType): boolean => type === "chain"

const byVersionDesc = <S extends ScorecardLike>(a: S, b: S) => b.scorecard_version - a.scorecard_version

/**
 * Callers who see the same projection of every read share a class: "public"
 * (anonymous and Free: the latest published scorecard only, its
 * domain_scores and mvc_gates null) or "full" (Pro and Enterprise: the whole
 * published history). An admin's reads are its own (drafts, and the bypass
 * flags its request asks for): shared with no one, undefined. The class
 * speaks of what a read shows, not of whether the caller may make it: that
 * is `authorize`, asked on every request.
 */
export type ProjectionClass = "public" | "full"

export const ProjectionClasses: { readonly [K in CallerKind]: ProjectionClass | undefined } = {
  anonymous: "public",
  free: "public",
  pro: "full",
  enterprise: "full",
  admin: undefined
}

/** The caller's projection class: callers of one class get identical projections of any record. */
export const projectionClassOf = (caller: Caller): ProjectionClass | undefined =>
  ProjectionClasses[callerKind(caller)]

/**
 * The scorecard list route (part 4): anonymous and Free callers get the latest
 * published scorecard only, with domain_scores and mvc_gates null; Pro and
 * Enterprise get the full published version history, newest first; admins also
 * see drafts. mvc_gates is null for every type but chains.
 */
export const projectScorecardList = <S extends ScorecardLike>(
  caller: Caller,
  type: EntityType,
  scorecards: ReadonlyArray<S>
): Array<S> => {
  const gates = hasMvcGates(type)
  const strip = (s: S): S => (gates ? s : s.mvc_gates === null ? s : { ...s, mvc_gates: null })
  const admin = isAdmin(caller)
  const published = scorecards
    .filter((s) => admin || s.status === "published" || s.status === "superseded")
    .sort(byVersionDesc)
  if (projectionClassOf(caller) === "public") {
    const latest = published.find((s) => s.status === "published")
    return latest === undefined ? [] : [{ ...latest, domain_scores: null, mvc_gates: null }]
  }
  return published.map(strip)
}

/** The latest published scorecard, the one exports, compare and domains read. */
export const latestPublished = <S extends ScorecardLike>(scorecards: ReadonlyArray<S>): S | undefined => {
  let best: S | undefined
  for (const s of scorecards) {
    if (s.status === "published" && (best === undefined || s.scorecard_version > best.scorecard_version))
      best = s
  }
  return best
}

// ---------------------------------------------------------------------------
// The service

export interface TierProjection {
  readonly isAdmin: typeof isAdmin
  readonly effectiveListFlags: typeof effectiveListFlags
  readonly isListed: typeof isListed
  readonly isDetailVisible: typeof isDetailVisible
  readonly areScorecardsVisible: typeof areScorecardsVisible
  readonly isPubliclyReadable: typeof isPubliclyReadable
  readonly projectScorecardList: typeof projectScorecardList
  readonly latestPublished: typeof latestPublished
  readonly hasMvcGates: typeof hasMvcGates
  /** Whether the caller holds a capability's tier (the one table of access, Capabilities.ts). */
  readonly authorize: typeof authorize
  readonly capabilitiesOf: typeof capabilitiesOf
}

const StandardProjection: TierProjection = {
  isAdmin,
  effectiveListFlags,
  isListed,
  isDetailVisible,
  areScorecardsVisible,
  isPubliclyReadable,
  projectScorecardList,
  latestPublished,
  hasMvcGates,
  authorize,
  capabilitiesOf
}

/**
 * Tier projection and access as a service, like `Scoring`: what each caller
 * may do and see, read with `yield* Projection` by the use cases and handlers
 * that project, so another tool can embed the same core behind one seam. The
 * work is done by the pure functions above (and Capabilities.ts), which the
 * property tests check. Without a provider it is those functions; the app
 * provides `Projection.layer` once.
 */
const projectionReference = Context.Reference<TierProjection>("@ratings/domain/access/Projection", {
  defaultValue: () => StandardProjection
})

export const Projection = Object.assign(projectionReference, {
  layer: Layer.succeed(projectionReference, StandardProjection) as Layer.Layer<never>
})
