/** The in-memory `ApiKeyRepository` of tests and tools; the contract is the port's (`../ApiKeyRepository.ts`). */
import { Effect, Layer, Option, Ref } from "effect"
import type { ApiKeyInfo } from "../../model/Caller.ts"
import { ApiKeyRepository } from "../ApiKeyRepository.ts"

const layer = Layer.effect(
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

export const ApiKeyRepositoryMemory = { layer }
