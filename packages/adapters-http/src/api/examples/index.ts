/**
 * The response examples of the per-entity routes, by type and route: each
 * type's demo entity as the routes answer it (./<Type>Examples.ts).
 */
import type { EntityType } from "@ratings/domain/model/EntityType"
import { BridgeExamples } from "./BridgeExamples.ts"
import { ChainExamples } from "./ChainExamples.ts"
import { OracleExamples } from "./OracleExamples.ts"
import { OrganisationExamples } from "./OrganisationExamples.ts"
import { ProtocolExamples } from "./ProtocolExamples.ts"
import { TokenExamples } from "./TokenExamples.ts"
import { VaultExamples } from "./VaultExamples.ts"

export type EntityRoute = keyof typeof ProtocolExamples

export const EntityExamples: { readonly [T in EntityType]: { readonly [R in EntityRoute]: unknown } } = {
  protocol: ProtocolExamples,
  chain: ChainExamples,
  token: TokenExamples,
  oracle: OracleExamples,
  vault: VaultExamples,
  organisation: OrganisationExamples,
  bridge: BridgeExamples
}
