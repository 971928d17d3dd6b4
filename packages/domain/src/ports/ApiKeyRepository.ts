/**
 * Port: API keys. The store never sees a key in clear: the adapter hashes the
 * presented bearer key and looks the hash up, so a leaked table grants nothing.
 */
import { Context, type Effect, type Option } from "effect"
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
>()("@ratings/domain/ports/ApiKeyRepository") {}
