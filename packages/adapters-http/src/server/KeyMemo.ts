/**
 * API keys held in memory under the keys' version (every revocation bumps
 * it, PgApiKeyRepository.ts): a key found by its digest is remembered with
 * the version read before the lookup and used only under that same version,
 * else looked up again. So a revoked key is refused on the first request that
 * begins after the revocation committed, in every process; unknown keys are
 * not remembered. The versions are the response cache's, else KeyVersions'
 * (a server without the cache); without either every request looks its key
 * up. One memo serves the admission step of both entrances.
 */
import type { ApiKeyInfo } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Context, Effect, Layer, Option } from "effect"
import { ServiceUnavailableError } from "../api/Errors.ts"
import { type CacheVersions, ResponseCache } from "./cache/ResponseCache.ts"
import { makeVersionReader } from "./cache/Versions.ts"

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

  /** The memo over the key store, checked against the response cache's versions, else KeyVersions'. */
  static readonly layer = Layer.effect(
    KeyMemo,
    Effect.gen(function* () {
      const keys = yield* ApiKeyRepository
      const cache = Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache))
      const own = Option.getOrUndefined(yield* Effect.serviceOption(KeyVersions))
      return KeyMemo.make(keys, cache?.versions ?? own)
    })
  )
}

/**
 * The current versions for a server without a response cache: the same
 * query the cache reads, shared by the requests waiting when it is sent
 * (Versions.ts), so the key memo holds keys there too.
 */
export class KeyVersions extends Context.Service<KeyVersions, Effect.Effect<CacheVersions, void>>()(
  "@ratings/adapters-http/KeyVersions"
) {
  static readonly layer = <E, R>(read: Effect.Effect<CacheVersions, E, R>) =>
    Layer.effect(
      KeyVersions,
      Effect.map(makeVersionReader(read), (reader) => reader.current)
    )
}
