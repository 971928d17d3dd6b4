/**
 * Handlers of export and compare. The domain decides tier, visibility, the
 * watermark and the quota (ExportService, CompareService); here the parsed
 * parameters go in, and both formats are streamed out a page at a time as the
 * domain reads them (ExportResult.pages), so memory stays flat whatever the limit.
 */
import { callerKind } from "@ratings/domain/model/Caller"
import { type EntityType, entityTypeFromName } from "@ratings/domain/model/EntityType"
import {
  type CompareBody,
  type ExportField,
  ExportLimit,
  parseFields,
  WatermarkField
} from "@ratings/domain/model/ExportFields"
import { CompareService } from "@ratings/domain/services/CompareService"
import {
  type ExportQuotaExceeded,
  type ExportResult,
  ExportService
} from "@ratings/domain/services/ExportService"
import { Effect, Exit, Result, type Schema, Stream } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { CompareNotFoundError, ExportQuotaError, splitIds } from "../api/UtilitiesApi.ts"
import { optionalCache, successCodecOf } from "./CachedRoutes.ts"
import { csvLine, csvRows } from "./Csv.ts"
import { currentCaller } from "./EntityHandlers.ts"
import { mapReadErrors } from "./ErrorMapping.ts"
import type { ResponseCache } from "./cache/ResponseCache.ts"
import { cuttingConnections } from "./ServerShutdown.ts"

// The contract already checked both; these only narrow the types.
const typeOf = (entity: string): EntityType => entityTypeFromName(entity)!
const fieldsOf = (fields: string): ReadonlyArray<ExportField> => Result.getOrThrow(parseFields(fields))

type ExportQuery = { readonly entity: string; readonly fields: string; readonly limit?: number | undefined }

/**
 * The export's body, withdrawn when the server cuts it at shutdown (the
 * grace period ran out before it was sent): a file the caller never got
 * whole does not count against the quota. A caller who hangs up keeps it
 * counted, as before.
 */
const delivered = <E>(cutting: () => boolean, result: ExportResult, body: Stream.Stream<string, E>) =>
  Stream.onExit(body, (exit) =>
    Exit.isSuccess(exit) || !cutting() ? Effect.void : Effect.ignore(result.withdraw)
  )

/** A refusal by the quota: 429 with retry-after, and when the window frees a slot. */
const quotaExceeded = (e: ExportQuotaExceeded) =>
  HttpEffect.appendPreResponseHandler((_, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(e.retry_after_seconds)))
  ).pipe(
    Effect.andThen(
      Effect.fail(
        new ExportQuotaError({
          detail: { error: "export_quota_exceeded", retry_after: e.retry_after_seconds, quota: e.quota }
        })
      )
    )
  )

const runExport = (
  exports: ExportService["Service"],
  request: HttpServerRequest.HttpServerRequest,
  query: ExportQuery,
  format: "csv" | "json"
) =>
  Effect.gen(function* () {
    const caller = yield* currentCaller(request)
    const result = yield* exports
      .export(caller, {
        entity_type: typeOf(query.entity),
        fields: fieldsOf(query.fields),
        limit: query.limit ?? ExportLimit.default,
        format
      })
      .pipe(Effect.catchTag("ExportQuotaExceeded", quotaExceeded), mapReadErrors)
    yield* HttpEffect.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "x-export-id", result.export_id))
    )
    return result
  }).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))

/** `[`, then each page's rows comma-separated (a comma before every page but the first), then `]`. */
const jsonResponse = (cutting: () => boolean, result: ExportResult) => {
  const body = Stream.suspend(() => {
    let first = true
    return Stream.concat(
      Stream.map(result.pages, (rows) => {
        const text = (first ? "[" : ",") + rows.map((row) => JSON.stringify(row)).join(",")
        first = false
        return text
      }),
      Stream.fromEffect(Effect.sync(() => (first ? "[]" : "]")))
    )
  })
  return HttpServerResponse.stream(Stream.encodeText(delivered(cutting, result, body)), {
    contentType: "application/json"
  })
}

const csvResponse = (cutting: () => boolean, query: ExportQuery, result: ExportResult) => {
  const columns = [...result.fields, WatermarkField]
  const name = `${typeOf(query.entity)}-export-${result.export_id}.csv`
  const body = Stream.concat(
    Stream.succeed(csvLine(columns)),
    Stream.map(result.pages, (rows) => csvRows(columns, rows))
  )
  return HttpServerResponse.stream(Stream.encodeText(delivered(cutting, result, body)), {
    contentType: "text/csv; charset=utf-8",
    headers: { "content-disposition": `attachment; filename="${name}"` }
  })
}

/**
 * A comparison, through the ResponseCache when the server has one
 * (docs/adr/0007-projection-cache.md): keyed by the caller's tier (the
 * route is refused below Enterprise, and a refusal is never stored), the
 * entity type and the ids and fields as given, and stamped with the type's
 * version, which every write of its entities and scorecards bumps.
 */
const runCompare = (
  compare: CompareService["Service"],
  cache: { readonly service: ResponseCache["Service"]; readonly codec: Schema.Top } | undefined,
  request: HttpServerRequest.HttpServerRequest,
  query: { readonly entity: string; readonly ids: string; readonly fields: string }
) =>
  Effect.gen(function* () {
    const caller = yield* currentCaller(request)
    const entityType = typeOf(query.entity)
    const compute = () =>
      Effect.map(
        compare.compare(caller, {
          entity_type: entityType,
          ids: splitIds(query.ids),
          fields: fieldsOf(query.fields)
        }),
        (body) => body as unknown as CompareBody
      )
    return yield* (
      cache === undefined
        ? compute()
        : cache.service.respond({
            caller,
            key: `compare|${callerKind(caller)}|${entityType}|${JSON.stringify([query.ids, query.fields])}`,
            type: entityType,
            schema: cache.codec,
            compute,
            entityOf: () => undefined
          })
    ).pipe(
      Effect.catchTag("CompareNotFound", (e) =>
        Effect.fail(new CompareNotFoundError({ detail: "not found", identifiers: e.identifiers }))
      ),
      mapReadErrors
    )
  })

export const UtilityHandlers = HttpApiBuilder.group(
  RatingsApi,
  "utilities",
  Effect.fnUntraced(function* (handlers) {
    const exports = yield* ExportService
    const compare = yield* CompareService
    const cutting = yield* cuttingConnections
    const service = yield* optionalCache
    const cache =
      service === undefined ? undefined : { service, codec: successCodecOf("utilities", "compare") }
    return handlers
      .handle("exportJson", ({ query, request }) =>
        Effect.map(runExport(exports, request, query, "json"), (result) => jsonResponse(cutting, result))
      )
      .handle("exportCsv", ({ query, request }) =>
        Effect.map(runExport(exports, request, query, "csv"), (result) => csvResponse(cutting, query, result))
      )
      .handle("compare", ({ query, request }) => runCompare(compare, cache, request, query))
  })
)
