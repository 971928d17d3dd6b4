/**
 * The values the command line's choice arguments and flags accept, listed
 * here rather than imported from the domain's modules, which load Effect's
 * Schema and would slow every `ratings --help`. The compiler holds each list
 * to the domain's type: a value added to or removed from the domain and not
 * here (or the other way round) fails the type check. A choice argument's
 * help lists its values, as effect/cli does for a choice flag.
 */
import { Argument } from "effect/cli"
import type { AdminRole, KeyTier } from "@ratings/domain/model/Caller"
import type { EntityStatus } from "@ratings/domain/model/Entity"
import type { EntityType } from "@ratings/domain/model/EntityType"

/** True when the list holds every member of the union and nothing else. */
type Exactly<List extends ReadonlyArray<string>, Union extends string> = [List[number]] extends [Union]
  ? [Union] extends [List[number]]
    ? List
    : never
  : never

const exactly =
  <Union extends string>() =>
  <const List extends ReadonlyArray<Union>>(list: Exactly<List, Union>): List =>
    list

export const EntityTypeChoices = exactly<EntityType>()([
  "protocol",
  "chain",
  "token",
  "oracle",
  "vault",
  "organisation",
  "bridge"
])

export const EntityStatusChoices = exactly<EntityStatus>()(["draft", "scoring", "approved", "published"])

export const KeyTierChoices = exactly<KeyTier>()(["free", "pro", "enterprise"])

export const AdminRoleChoices = exactly<AdminRole>()(["admin", "super_admin"])

/** A positional argument taking one of `choices`, its help listing them. */
export const choiceArgument = <const Choices extends ReadonlyArray<string>>(
  name: string,
  choices: Choices,
  description: string
): Argument.Argument<Choices[number]> =>
  Argument.Literals(name, choices).pipe(
    Argument.withDescription(`${description} (choices: ${choices.join(", ")})`)
  )
