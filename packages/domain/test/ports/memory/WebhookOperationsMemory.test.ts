/**
 * The webhook-operations contracts (test/support/contract) over the in-memory
 * layers; adapters-sql's PgWebhookOperations.test.ts runs them over Postgres.
 */
import { AlertRuleRepositoryMemory } from "../../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../../src/ports/memory/DeliveryOutboxMemory.ts"
import {
  alertRuleOperationsContract,
  deliveryOutboxOperationsContract
} from "../../support/contract/events-webhook-operations.ts"

alertRuleOperationsContract("layerMemory", () => AlertRuleRepositoryMemory.layer)
deliveryOutboxOperationsContract("layerMemory", () => DeliveryOutboxMemory.layer)
