/**
 * API keys held in memory under the keys' version (ResponseCache.ts reads it
 * from the database; every revocation bumps it in its own statement,
 * PgApiKeyRepository.ts): a key found by its digest is remembered with the
 * version read before the lookup, and used only under that same version,
 * else looked up again. So a revoked key is refused on the first request
 * that begins after the revocation committed, in every process. Unknown keys
 * are not remembered (a key created elsewhere is found at once); without
 * versions every request looks its key up. Admission (admission/Admission.ts)
 * asks it at both entrances: `held` at once, `keyOf` through the effect.
 */
import type { ApiKeyInfo } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Context, Effect, Layer, Option } from "effect"
import { ServiceUnavailableError } from "../api/Errors.ts"
import { type CacheVersions, ResponseCache } from "./ResponseCache.ts"

/** The most keys held in memory; past it the longest held is forgotten first. */
export const MaxRememberedKeys = 10_000

/** A key found by its digest, under the keys' version read before the lookup. */
interface Remembered {
  readonly info: ApiKeyInfo
  readonly version: string
}

export class KeyMemo extends Context.Service<
  KeyMemo,
  {
    /**
     * The key of a digest, with the versions read for it: remembered under
     * the current keys' version, else looked up (and remembered when found).
     * `read` are versions already read for this request (from a query sent
     * after it began); without them the versions are read here.
     */
    readonly keyOf: (
      hash: string,
      read?: CacheVersions | undefined
    ) => Effect.Effect<
      { readonly found: Option.Option<ApiKeyInfo>; readonly versions: CacheVersions | undefined },
      ServiceUnavailableError
    >
    /** The key remembered for a digest under exactly this keys' version, if any (no lookup). */
    readonly held: (hash: string, keysVersion: string) => ApiKeyInfo | undefined
  }
>()("@ratings/adapters-http/KeyMemo") {
  static readonly make = (
    keys: ApiKeyRepository["Service"],
    versionsOf: Effect.Effect<CacheVersions, void> | undefined
  ): KeyMemo["Service"] => {
    const remembered = new Map<string, Remembered>()
    const remember = (hash: string, entry: Remembered) => {
      remembered.delete(hash)
      if (remembered.size >= MaxRememberedKeys) remembered.delete(remembered.keys().next().value!)
      remembered.set(hash, entry)
    }
    const lookup = (hash: string) =>
      keys
        .findActiveByHash(hash)
        .pipe(
          Effect.catchTag("StoreError", (e) =>
            Effect.logError("key store failure answered 503", e.message).pipe(
              Effect.andThen(Effect.fail(ServiceUnavailableError.instance))
            )
          )
        )
    const held = (hash: string, keysVersion: string) => {
      const entry = remembered.get(hash)
      return entry !== undefined && entry.version === keysVersion ? entry.info : undefined
    }
    const keyOf = Effect.fnUntraced(function* (hash: string, read?: CacheVersions | undefined) {
      const versions =
        read ??
        (versionsOf === undefined ? undefined : Option.getOrUndefined(yield* Effect.option(versionsOf)))
      const version = versions?.api_keys
      if (version === undefined) return { found: yield* lookup(hash), versions }
      const info = held(hash, version)
      if (info !== undefined) return { found: Option.some(info), versions }
      const found = yield* lookup(hash)
      if (Option.isSome(found)) remember(hash, { info: found.value, version })
      else remembered.delete(hash)
      return { found, versions }
    })
    return KeyMemo.of({ keyOf, held })
  }

  /** The memo over the key store, checked against the response cache's versions when it has them. */
  static readonly layer = Layer.effect(
    KeyMemo,
    Effect.gen(function* () {
      const keys = yield* ApiKeyRepository
      const cache = Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache))
      return KeyMemo.make(keys, cache?.versions)
    })
  )
}
