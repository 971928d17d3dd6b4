/**
 * The one place where layers are composed: the Postgres stores behind every
 * port of the domain, the outbound webhook ports, the domain's use cases over
 * them, the importer, and the HTTP server's response cache.
 */
import { ResponseCache, type ResponseCacheConfig } from "@ratings/adapters-http/server/cache/ResponseCache"
import { KeyVersions } from "@ratings/adapters-http/server/KeyMemo"
import * as LayerQuSource from "@ratings/adapters-http/upstream/LayerQuSource"
import { NodeIdGenerator } from "@ratings/adapters-sql/NodeIdGenerator"
import * as PgAlertRuleRepository from "@ratings/adapters-sql/PgAlertRuleRepository"
import * as PgApiKeyRepository from "@ratings/adapters-sql/PgApiKeyRepository"
import * as PgChainDirectory from "@ratings/adapters-sql/PgChainDirectory"
import * as PgContactRequestRepository from "@ratings/adapters-sql/PgContactRequestRepository"
import * as PgCacheInvalidation from "@ratings/adapters-sql/PgCacheInvalidation"
import * as PgDatabase from "@ratings/adapters-sql/PgDatabase"
import * as PgDeliveryOutbox from "@ratings/adapters-sql/PgDeliveryOutbox"
import * as PgEntityRepository from "@ratings/adapters-sql/PgEntityRepository"
import * as PgExportLog from "@ratings/adapters-sql/PgExportLog"
import * as PgIncidentRepository from "@ratings/adapters-sql/PgIncidentRepository"
import * as PgQuantumSnapshotStore from "@ratings/adapters-sql/PgQuantumSnapshotStore"
import * as PgReadiness from "@ratings/adapters-sql/PgReadiness"
import * as PgRubricRepository from "@ratings/adapters-sql/PgRubricRepository"
import * as PgScorecardRepository from "@ratings/adapters-sql/PgScorecardRepository"
import * as PgTransaction from "@ratings/adapters-sql/PgTransaction"
import { SecretBox } from "@ratings/adapters-sql/SecretBox"
import * as HmacSigner from "@ratings/adapters-webhook/HmacSigner"
import * as UndiciTransport from "@ratings/adapters-webhook/UndiciTransport"
import { Projection } from "@ratings/domain/access/Projection"
import { IncidentLifecycle } from "@ratings/domain/incidents/IncidentLifecycle"
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import { CompareService } from "@ratings/domain/services/CompareService"
import { ContactService } from "@ratings/domain/services/ContactService"
import { ExportService } from "@ratings/domain/services/ExportService"
import { Importer } from "@ratings/domain/services/Importer"
import { IncidentService } from "@ratings/domain/services/IncidentService"
import { Publisher } from "@ratings/domain/services/Publisher"
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { WebhookDispatcher } from "@ratings/domain/services/WebhookDispatcher"
import { WebhookHousekeeping } from "@ratings/domain/services/WebhookHousekeeping"
import { RetryPolicy } from "@ratings/domain/webhooks/RetrySchedule"
import { WebhookTargetPolicy } from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { Config, Duration, Effect, Layer, Option, type Redacted } from "effect"
import { QuantumConfig, QuantumSourceUrlSetting } from "./Config.ts"
import { WebhookDeliveryConfig, WebhookHostConcurrencyConfig, WebhookTargetsConfig } from "./WebhookConfig.ts"

/**
 * The policies the domain is built around, provided once for everything that
 * reads them: the retry policy as configured (the offsets scaled only under
 * NODE_ENV=test), read by the outbox, which applies its offsets, and by every
 * dispatcher, which reads its receiver timeout and wakes at its retry times;
 * the tier projection; the incident lifecycle; and scoring.
 */
export const policies = Layer.mergeAll(
  Layer.unwrap(
    Effect.map(WebhookDeliveryConfig, (settings) =>
      RetryPolicy.layer({ scale: Option.getOrUndefined(settings.retryScale) })
    )
  ),
  Projection.layer,
  IncidentLifecycle.layer,
  Scoring.layer
)

/**
 * Every port of the domain on Postgres, with the `policies` they and the use
 * cases read (and everything built over `application` reads, such as
 * `webhookDispatcherLoop`). Needs the PgClient of `database`.
 */
export const stores = (serverKey: Redacted.Redacted<string>) =>
  Layer.mergeAll(
    PgEntityRepository.layer,
    PgScorecardRepository.layer,
    PgRubricRepository.layer,
    PgApiKeyRepository.layer,
    PgExportLog.layer,
    PgTransaction.layer,
    PgIncidentRepository.layer,
    PgIncidentRepository.layerRatedProtocols,
    PgAlertRuleRepository.layer.pipe(Layer.provide(SecretBox.layer(serverKey))),
    PgDeliveryOutbox.layer,
    PgQuantumSnapshotStore.layer,
    PgContactRequestRepository.layer,
    PgReadiness.layer,
    NodeIdGenerator
  ).pipe(Layer.provideMerge(policies))

/**
 * The LayerQu dataset as configured: the live source at
 * RATINGS_QUANTUM_SOURCE_URL, or, when it is unset, a source whose every fetch
 * fails saying so (the stored snapshot, such as the demo sample, is then
 * served as it is).
 */
export const quantumSource = Layer.unwrap(
  Effect.gen(function* () {
    const settings = yield* QuantumConfig
    return Option.match(settings.sourceUrl, {
      onNone: () => LayerQuSource.layerNotConfigured(QuantumSourceUrlSetting),
      onSome: (url) => LayerQuSource.layer({ url: url.href, timeout: settings.timeout })
    })
  })
)

/** Quantum readiness over the configured source, matched against every chain of the entity store. */
const quantum = QuantumService.layer.pipe(
  Layer.provide(Layer.mergeAll(PgChainDirectory.layer, quantumSource))
)

/**
 * Outbound webhooks on one configured target policy (WebhookTargetsConfig):
 * the HMAC signer, the undici transport that applies the policy at every
 * send, and the policy itself, which alert rules apply when a URL is saved.
 */
export const webhookPorts = Layer.unwrap(
  Effect.map(Config.all([WebhookTargetsConfig, WebhookHostConcurrencyConfig]), ([policy, hostConcurrency]) =>
    Layer.mergeAll(
      HmacSigner.layer,
      // Enough connections per receiver for the dispatcher's sends to one host, and a few beside them.
      UndiciTransport.layer({
        ...policy,
        maxConnectionsPerOrigin: Math.max(UndiciTransport.defaultMaxConnectionsPerOrigin, 2 * hostConcurrency)
      }),
      WebhookTargetPolicy.layer(policy)
    )
  )
)

/**
 * Alert rules over the stores and the webhook ports. Its dispatcher has no
 * loop: it makes the attempts test-webhook reports on, at once;
 * `webhookDispatcherLoop` sends everything else.
 */
const alertRules = AlertRuleService.layer.pipe(Layer.provide(WebhookDispatcher.layerWithoutLoop()))

/** The domain's use cases over the stores and the webhook ports. */
export const services = (serverKey: Redacted.Redacted<string>) =>
  Layer.mergeAll(
    RatingsReader.layer,
    Publisher.layer,
    ExportService.layer,
    CompareService.layer,
    ContactService.layer,
    IncidentService.layer,
    quantum,
    alertRules
  ).pipe(Layer.provideMerge(Layer.merge(stores(serverKey), webhookPorts)))

/** Use cases plus the importer, which replays publications through the Publisher. */
export const application = (serverKey: Redacted.Redacted<string>) =>
  Importer.layer.pipe(Layer.provideMerge(services(serverKey)))

/** The migrated database of a URL. */
export const database = (url: string) => PgDatabase.layer({ url })

/**
 * The HTTP server's response cache: each read is served from it only while
 * its type's version in Postgres (bumped by every write in its own
 * transaction) is the one its entry was computed under, so no process serves
 * a state older than a committed write to a read that begins after the
 * commit; the changes every process announces (LISTEN ratings_changed) evict
 * entries early. Needs the PgClient of `database`.
 */
export const responseCache = (config?: ResponseCacheConfig) =>
  ResponseCache.layerInvalidatedBy(
    Effect.flatMap(PgCacheInvalidation.CacheInvalidation, (invalidation) => invalidation.subscribe),
    {
      ...config,
      versions: Effect.flatMap(PgCacheInvalidation.CacheInvalidation, (invalidation) => invalidation.versions)
    }
  ).pipe(Layer.provide(PgCacheInvalidation.layer))

/**
 * For a server without the response cache: the versions its key memo holds
 * API keys under, read as the cache reads them. Needs the PgClient of `database`.
 */
export const keyVersions = KeyVersions.layer(
  Effect.flatMap(PgCacheInvalidation.CacheInvalidation, (invalidation) => invalidation.versions)
).pipe(Layer.provide(PgCacheInvalidation.layer))

/**
 * The webhook dispatcher of a server process: its loop runs for the lifetime
 * of the layer, claiming due deliveries from the outbox and sending them, on
 * the retry policy of `policies`, the configured concurrency, poll interval and (tests only)
 * claim lease. Closing the layer (shutdown) stops the loop claiming, hands
 * back at once the deliveries it claimed but did not start, and the sends in
 * flight have `stopGrace` (the server's shutdown grace, which runs
 * alongside the HTTP server's drain) to finish and have their attempts
 * recorded; sends still running then are interrupted, and their claims
 * expire so that another process, or this one restarted, makes those
 * attempts. Needs the rules and outbox of `stores`, a Signer and a
 * WebhookTransport.
 */
export const webhookDispatcherLoop = (stopGrace: Duration.Duration) =>
  Layer.unwrap(
    Effect.map(WebhookDeliveryConfig, (settings) =>
      WebhookDispatcher.layer({
        concurrency: settings.concurrency,
        hostConcurrency: settings.hostConcurrency,
        pollInterval: settings.pollInterval,
        leaseMs: Option.getOrUndefined(Option.map(settings.lease, Duration.toMillis)),
        stopGrace,
        disableAfter: settings.disableAfter
      })
    )
  )

/**
 * The webhook history sweep of a server process, beside the dispatcher:
 * finished deliveries and attempts past the configured retention removed in
 * small batches, and replaced signing keys destroyed when their overlap ends.
 * Needs the rules and outbox of `stores`.
 */
export const webhookHousekeepingLoop = Layer.unwrap(
  Effect.map(WebhookDeliveryConfig, (settings) =>
    WebhookHousekeeping.layer({ retention: settings.retention })
  )
)
