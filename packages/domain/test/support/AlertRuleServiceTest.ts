/**
 * `AlertRuleService` over in-memory ports, a scripted transport
 * (`WebhookTransportScript`), a dispatcher without its loop, the test
 * support's in-memory signer, and the production target policy (https,
 * public targets only) unless another is given. Every dependency is exposed
 * so tests can drive `runOnce` and read the outbox. Test support because the
 * in-memory signer is (the domain holds no hash of its own).
 */
import { Layer } from "effect"
import { AlertRuleRepository } from "../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { IdGenerator } from "../../src/ports/IdGenerator.ts"
import { Transaction } from "../../src/ports/Transaction.ts"
import { WebhookTransport } from "../../src/ports/WebhookTransport.ts"
import { AlertRuleService } from "../../src/services/AlertRuleService.ts"
import { WebhookDispatcher } from "../../src/services/WebhookDispatcher.ts"
import { type TargetPolicy, WebhookTargetPolicy } from "../../src/webhooks/WebhookTargetPolicy.ts"
import * as SignerMemory from "./SignerMemory.ts"

export const layerTestWith = (targets: TargetPolicy = WebhookTargetPolicy.strict) =>
  AlertRuleService.layer.pipe(
    Layer.provideMerge(WebhookDispatcher.layerWithoutLoop()),
    Layer.provideMerge(
      Layer.mergeAll(
        AlertRuleRepository.layerMemory,
        DeliveryOutbox.layerMemory,
        IdGenerator.layerMemory,
        SignerMemory.layer,
        Transaction.layerMemory,
        WebhookTransport.layerMemory,
        WebhookTargetPolicy.layer(targets)
      )
    )
  )

export const layerTest = layerTestWith()
