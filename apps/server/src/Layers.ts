/**
 * The one place where layers are composed: the Postgres stores behind every
 * port of the domain, the domain's use cases over them, the importer, and the
 * HTTP server's response cache.
 */
import { ResponseCache, type ResponseCacheConfig } from "@ratings/adapters-http/server/ResponseCache"
import * as LayerQuSource from "@ratings/adapters-http/upstream/LayerQuSource"
import * as PgAlertRuleRepository from "@ratings/adapters-sql/PgAlertRuleRepository"
import * as PgApiKeyRepository from "@ratings/adapters-sql/PgApiKeyRepository"
import * as PgCacheInvalidation from "@ratings/adapters-sql/PgCacheInvalidation"
import * as PgDatabase from "@ratings/adapters-sql/PgDatabase"
import * as PgDeliveryOutbox from "@ratings/adapters-sql/PgDeliveryOutbox"
import * as PgEntityRepository from "@ratings/adapters-sql/PgEntityRepository"
import * as PgExportLog from "@ratings/adapters-sql/PgExportLog"
import * as PgIncidentRepository from "@ratings/adapters-sql/PgIncidentRepository"
import * as PgQuantumSnapshotStore from "@ratings/adapters-sql/PgQuantumSnapshotStore"
import * as PgRubricRepository from "@ratings/adapters-sql/PgRubricRepository"
import * as PgScorecardRepository from "@ratings/adapters-sql/PgScorecardRepository"
import * as PgTransaction from "@ratings/adapters-sql/PgTransaction"
import { SecretBox } from "@ratings/adapters-sql/SecretBox"
import { ChainDirectory } from "@ratings/domain/ports/ChainDirectory"
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { CompareService } from "@ratings/domain/services/CompareService"
import { ExportService } from "@ratings/domain/services/ExportService"
import { Importer } from "@ratings/domain/services/Importer"
import { IncidentService } from "@ratings/domain/services/IncidentService"
import { Publisher } from "@ratings/domain/services/Publisher"
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Effect, Layer, Option, type Redacted } from "effect"
import { QuantumConfig, QuantumSourceUrlSetting } from "./Config.ts"
import { NodeIdGenerator } from "./NodeIdGenerator.ts"

/** Every port of the domain on Postgres. Needs the PgClient of `database`. */
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
    NodeIdGenerator,
    Scoring.layer
  )

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
  Layer.provide(Layer.mergeAll(ChainDirectory.layerEntities, quantumSource))
)

/** The domain's use cases over the stores. */
export const services = (serverKey: Redacted.Redacted<string>) =>
  Layer.mergeAll(
    RatingsReader.layer,
    Publisher.layer,
    ExportService.layer,
    CompareService.layer,
    PgIncidentRepository.serialisedIngest(IncidentService.layer),
    quantum
  ).pipe(Layer.provideMerge(stores(serverKey)))

/** Use cases plus the importer, which replays publications through the Publisher. */
export const application = (serverKey: Redacted.Redacted<string>) =>
  Importer.layer.pipe(Layer.provideMerge(services(serverKey)))

/** The migrated database of a URL. */
export const database = (url: string) => PgDatabase.layer({ url })

/**
 * The HTTP server's response cache, invalidated by the changes every process
 * announces in Postgres (LISTEN ratings_changed). Needs the PgClient of `database`.
 */
export const responseCache = (config?: ResponseCacheConfig) =>
  ResponseCache.layerInvalidatedBy(
    Effect.gen(function* () {
      const invalidation = yield* PgCacheInvalidation.CacheInvalidation
      return yield* invalidation.subscribe
    }),
    config
  ).pipe(Layer.provide(PgCacheInvalidation.layer))
