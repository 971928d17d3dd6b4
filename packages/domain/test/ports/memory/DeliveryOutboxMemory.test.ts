/**
 * The DeliveryOutbox contract (test/support/contract) over the in-memory
 * layer; adapters-sql's PgDeliveryOutbox.test.ts runs it over Postgres.
 */
import { DeliveryOutboxMemory } from "../../../src/ports/memory/DeliveryOutboxMemory.ts"
import { deliveryOutboxContract } from "../../support/contract/events-delivery-outbox.ts"

deliveryOutboxContract("layerMemory", () => DeliveryOutboxMemory.layer)
