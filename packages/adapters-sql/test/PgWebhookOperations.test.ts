/**
 * The webhook-operations contracts over Postgres: endpoint health, key
 * rotation, holding, bulk re-fire and the retention sweep, exactly as in memory.
 */
import { Layer } from "effect"
import {
  alertRuleOperationsContract,
  deliveryOutboxOperationsContract
} from "@ratings/domain/test-support/contract/events-webhook-operations"
import * as PgAlertRuleRepository from "../src/PgAlertRuleRepository.ts"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import { SecretBox } from "../src/SecretBox.ts"
import { sharedDatabase } from "./PostgresTarget.ts"

const database = sharedDatabase(["alert_rules", "webhook_deliveries", "webhook_delivery_attempts"])

alertRuleOperationsContract("PgAlertRuleRepository", () =>
  PgAlertRuleRepository.layer.pipe(Layer.provide(Layer.merge(database, SecretBox.layerRandom)))
)
deliveryOutboxOperationsContract("PgDeliveryOutbox", () =>
  PgDeliveryOutbox.layer.pipe(Layer.provide(database))
)
