/**
 * Port: API keys. The store never sees a key in clear: the adapter hashes the
 * presented bearer key and looks the hash up, so a leaked table grants nothing.
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import type { ApiKeyInfo, KeyTier } from "../model/Caller.ts"
import type { StoreError } from "./StoreError.ts"

export interface NewApiKey {
  readonly id: string
  readonly name: string
  readonly tier: KeyTier
  readonly account_id: string
  readonly prefix: string
  readonly hash: string
  readonly created_at: string
}

export class ApiKeyRepository extends Context.Service<
  ApiKeyRepository,
  {
    readonly create: (key: NewApiKey) => Effect.Effect<ApiKeyInfo, StoreError>
    /** The active (not revoked) key with this hash. */
    readonly findActiveByHash: (hash: string) => Effect.Effect<Option.Option<ApiKeyInfo>, StoreError>
    readonly list: () => Effect.Effect<ReadonlyArray<ApiKeyInfo>, StoreError>
    /** Revokes by id; false when no active key has that id. */
    readonly revoke: (id: string, at: string) => Effect.Effect<boolean, StoreError>
  }
>()("@ratings/domain/ports/ApiKeyRepository") {
  static readonly layerMemory = Layer.effect(
    ApiKeyRepository,
    Effect.gen(function* () {
      const store = yield* Ref.make(new Map<string, { info: ApiKeyInfo; hash: string }>())
      return ApiKeyRepository.of({
        create: (k) => {
          const info: ApiKeyInfo = {
            id: k.id,
            name: k.name,
            tier: k.tier,
            account_id: k.account_id,
            prefix: k.prefix,
            created_at: k.created_at,
            revoked_at: null
          }
          return Effect.as(
            Ref.update(store, (m) => new Map(m).set(k.id, { info, hash: k.hash })),
            info
          )
        },
        findActiveByHash: (hash) =>
          Effect.map(Ref.get(store), (m) =>
            Option.fromNullishOr(
              [...m.values()].find((e) => e.hash === hash && e.info.revoked_at === null)?.info
            )
          ),
        list: () => Effect.map(Ref.get(store), (m) => [...m.values()].map((e) => e.info)),
        revoke: (id, at) =>
          Ref.modify(store, (m) => {
            const e = m.get(id)
            if (e === undefined || e.info.revoked_at !== null) return [false, m]
            return [true, new Map(m).set(id, { ...e, info: { ...e.info, revoked_at: at } })]
          })
      })
    })
  )
}
