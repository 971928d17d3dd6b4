/**
 * Opened signing keys, cached in this process by rule id and sealed text for
 * a few minutes: the dispatcher reads a rule's key for every delivery, and a
 * fan-out sends many to each rule. Only the decryption is saved: every read
 * still asks the table, so a deleted rule is gone at once, and a re-sealed
 * key is new sealed text and misses. The cache is bounded, holds nothing that
 * is not in the table, and is never logged.
 */
import { Clock, Effect } from "effect"
import type { SecretBoxShape } from "../SecretBox.ts"
import { keyContext } from "./AlertRuleRows.ts"

/** How long an opened signing key stays cached, and how many are kept at most. */
const KeyCacheTtlMs = 5 * 60_000
const KeyCacheSize = 20_000

/**
 * The rule's signing key from its sealed text, decrypted at most once per
 * cache lifetime; `cached` is the same read as plain code, for a batch of
 * rules whose keys are mostly in the cache already.
 */
export const makeKeyOpener = (box: SecretBoxShape) => {
  // By sealed text, each entry naming the rule it was opened for (in lowercase): a sealed key
  // opens for its own rule only. Insertion order is age order, so the first entry is the one to
  // drop when full.
  const openedKeys = new Map<
    string,
    { readonly rule: string; readonly key: string; readonly until: number }
  >()
  /** The key opened from `sealed` for the rule, if cached and not expired at `now`. */
  const cached = (ruleId: string, sealed: string, now: number): string | undefined => {
    const entry = openedKeys.get(sealed)
    return entry !== undefined && entry.until > now && entry.rule === ruleId.toLowerCase()
      ? entry.key
      : undefined
  }
  const open = (ruleId: string, sealed: string) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const hit = cached(ruleId, sealed, now)
      if (hit !== undefined) return hit
      const key = yield* box.open(sealed, keyContext(ruleId))
      openedKeys.delete(sealed)
      if (openedKeys.size >= KeyCacheSize) {
        for (const old of openedKeys.keys()) {
          openedKeys.delete(old)
          if (openedKeys.size < KeyCacheSize) break
        }
      }
      openedKeys.set(sealed, { rule: ruleId.toLowerCase(), key, until: now + KeyCacheTtlMs })
      return key
    })
  return Object.assign(open, { cached })
}

export type KeyOpener = ReturnType<typeof makeKeyOpener>
