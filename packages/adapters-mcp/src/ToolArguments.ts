/**
 * The older names some tool arguments still go by, beside the live service's
 * names that tools/list advertises (RatingsTools.ts): get_rating's
 * `identifier` was our `slug` or `id`, get_rating_breakdown's `slug` may come
 * as `identifier` or `id`. A call's arguments are read under the live names
 * before they are decoded; one argument given under two names with different
 * values is refused, naming both, and a refusal of a value names the argument
 * as the caller wrote it.
 */
import type { RatingsToolName } from "./RatingsTools.ts"
import type { ToolAnswer } from "./ToolText.ts"

/** Per tool, each older name and the live name it stands for. */
export const ArgumentAliases: {
  readonly [Name in RatingsToolName]?: Readonly<Record<string, string>>
} = {
  get_rating: { slug: "identifier", id: "identifier" },
  get_rating_breakdown: { identifier: "slug", id: "slug" }
}

/** A call's arguments under the live names, and the name the caller wrote for each renamed one. */
export interface LiveArguments {
  readonly payload: unknown
  /** Live name to the name the caller used, for the arguments given only under an older name. */
  readonly writtenAs: ReadonlyMap<string, string>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b)

const shown = (value: unknown) => {
  const text = typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value) ?? value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/**
 * The arguments of a call to `tool` under the live names, or, when one
 * argument is given under two names with different values, the refusal.
 * Arguments that are not an object are left for the decoding to refuse.
 */
export const liveArgumentsOf = (
  tool: RatingsToolName,
  payload: unknown
):
  | { readonly _tag: "Read"; readonly args: LiveArguments }
  | { readonly _tag: "Refused"; readonly answer: ToolAnswer } => {
  const aliases = ArgumentAliases[tool]
  if (aliases === undefined || !isRecord(payload))
    return { _tag: "Read", args: { payload, writtenAs: new Map() } }
  const renamed: Record<string, unknown> = { ...payload }
  const writtenAs = new Map<string, string>()
  for (const live of new Set(Object.values(aliases))) {
    const names = [live, ...Object.keys(aliases).filter((alias) => aliases[alias] === live)]
    const given = names.filter((name) => payload[name] !== undefined)
    for (const name of names) delete renamed[name]
    if (given.length === 0) continue
    const [first, ...others] = given as [string, ...Array<string>]
    const differing = others.find((name) => !same(payload[name], payload[first]))
    if (differing !== undefined)
      return {
        _tag: "Refused",
        answer: {
          text:
            `invalid arguments: ${first} and ${differing} are one argument (${live}; ` +
            `${names.filter((n) => n !== live).join(" and ")} ${names.length > 2 ? "are its older names" : "is its older name"}) ` +
            `but were given different values, ${shown(payload[first])} and ${shown(payload[differing])}: give it once`,
          structured: { invalid: [{ argument: live, msg: `given as both ${first} and ${differing}` }] },
          isError: true
        }
      }
    renamed[live] = payload[first]
    if (first !== live) writtenAs.set(live, first)
  }
  return { _tag: "Read", args: { payload: renamed, writtenAs } }
}
