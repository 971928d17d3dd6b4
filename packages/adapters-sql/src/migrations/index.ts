/**
 * Every migration, keyed `<id>_<name>`; they run once each, in id order, at start-up.
 */
import Ratings from "./0001_ratings.ts"
import EventsAndFeeds from "./0002_events_and_feeds.ts"
import CacheVersions from "./0003_cache_versions.ts"
import WireTimestamps from "./0004_wire_timestamps.ts"
import ExportKey from "./0005_export_key.ts"
import QuantumSnapshotSize from "./0006_quantum_snapshot_size.ts"
import ContactRequests from "./0007_contact_requests.ts"
import ContactReceipts from "./0008_contact_receipts.ts"
import DeliveryClaimToken from "./0009_delivery_claim_token.ts"
import WebhookOperations from "./0010_webhook_operations.ts"
import DeliveryFillfactor from "./0011_delivery_fillfactor.ts"
import DeliverySeqIndex from "./0012_delivery_seq_index.ts"

export const Migrations = {
  "0001_ratings": Ratings,
  "0002_events_and_feeds": EventsAndFeeds,
  "0003_cache_versions": CacheVersions,
  "0004_wire_timestamps": WireTimestamps,
  "0005_export_key": ExportKey,
  "0006_quantum_snapshot_size": QuantumSnapshotSize,
  "0007_contact_requests": ContactRequests,
  "0008_contact_receipts": ContactReceipts,
  "0009_delivery_claim_token": DeliveryClaimToken,
  "0010_webhook_operations": WebhookOperations,
  "0011_delivery_fillfactor": DeliveryFillfactor,
  "0012_delivery_seq_index": DeliverySeqIndex
}
