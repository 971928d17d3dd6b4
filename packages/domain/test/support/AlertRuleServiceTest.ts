/**
 * `AlertRuleService` over in-memory ports, a scripted transport
 * (`WebhookTransportScript`), a dispatcher without its loop, the test
 * support's in-memory signer, and the production target policy (https,
 * public targets only) unless another is given. Every dependency is exposed
 * so tests can drive `runOnce` and read the outbox. Test support because the
 * in-memory signer is (the domain holds no hash of its own).
 */
import { Layer } from "effect"
import { AlertRuleService } from "../../src/services/AlertRuleService.ts"
import { WebhookDispatcher } from "../../src/services/WebhookDispatcher.ts"
import { type TargetPolicy, WebhookTargetPolicy } from "../../src/webhooks/WebhookTargetPolicy.ts"
import * as SignerMemory from "./SignerMemory.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { TransactionMemory } from "../../src/ports/memory/TransactionMemory.ts"
import { WebhookTransportMemory } from "../../src/ports/memory/WebhookTransportMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"

export const layerTestWith = (targets: TargetPolicy = WebhookTargetPolicy.strict) =>
  AlertRuleService.layer.pipe(
    Layer.provideMerge(WebhookDispatcher.layerWithoutLoop()),
    Layer.provideMerge(
      Layer.mergeAll(
        AlertRuleRepositoryMemory.layer,
        DeliveryOutboxMemory.layer,
        IdGeneratorMemory.layer,
        SignerMemory.layer,
        TransactionMemory.layer,
        WebhookTransportMemory.layer,
        WebhookTargetPolicy.layer(targets)
      )
    )
  )

export const layerTest = layerTestWith()
