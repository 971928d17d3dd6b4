/**
 * The incident write: `upsert` stores a record the lifecycle decided on,
 * under the advisory lock on its aggregation key, after checking that the
 * decision was not made on a stale read (see PgIncidentRepository).
 */
import type { IncidentLifecyclePolicy } from "@ratings/domain/incidents/IncidentLifecycle"
import type { IncidentRecord } from "@ratings/domain/model/Incident"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { notifyChanges } from "../PgCacheInvalidation.ts"
import { lockKey } from "./IncidentReads.ts"
import { conflict, decodeWith, IdRow, instantOf, mapSqlError, NoncesRow } from "./IncidentRows.ts"

const decodeStored = decodeWith(NoncesRow, "upsert")
const decodeNeighbour = decodeWith(IdRow, "upsert")

/** The instants of a record's date-times, or undefined when one carries no zone. */
const instantsOf = (record: IncidentRecord) => {
  const firstSeen = instantOf(record.first_seen_at)
  const detected = record.detected_at === null ? null : instantOf(record.detected_at)
  const resolved = record.resolved_at === null ? null : instantOf(record.resolved_at)
  return firstSeen === undefined || detected === undefined || resolved === undefined
    ? undefined
    : { firstSeen, detected, resolved }
}

/**
 * The nonces stored for the record now (undefined for a new one), after
 * checking that the write was not decided on a stale read: an update must
 * extend the stored nonce list, and a new incident must not land within the
 * aggregation window of one already stored.
 */
const storedNonces = (
  sql: SqlClient.SqlClient,
  record: IncidentRecord,
  key: string,
  firstSeen: Date,
  windowMillis: number
) =>
  Effect.gen(function* () {
    const [stored] = yield* sql`
      SELECT ARRAY(SELECT n.nonce FROM incident_nonces n WHERE n.incident_id = i.incident_id ORDER BY n.position)
        AS nonces
      FROM incidents i WHERE i.incident_id = ${record.incident_id} FOR UPDATE
    `.pipe(Effect.flatMap(decodeStored))
    if (stored === undefined) {
      const [neighbour] = yield* sql`
        SELECT incident_id FROM incidents
        WHERE aggregation_key = ${key}
          AND first_seen_at BETWEEN ${new Date(firstSeen.getTime() - windowMillis)}
                                AND ${new Date(firstSeen.getTime() + windowMillis)}
        LIMIT 1
      `.pipe(Effect.flatMap(decodeNeighbour))
      if (neighbour !== undefined) {
        return yield* conflict(
          `incident ${neighbour.incident_id} of the same hack was stored since the lookup`
        )
      }
    } else if (!stored.nonces.every((nonce, i) => record.nonces[i] === nonce)) {
      return yield* conflict(`incident ${record.incident_id} changed since it was read`)
    }
    return stored?.nonces
  })

const writeIncident = (
  sql: SqlClient.SqlClient,
  record: IncidentRecord,
  key: string,
  servable: boolean,
  { firstSeen, detected, resolved }: { firstSeen: Date; detected: Date | null; resolved: Date | null }
) => sql`
  INSERT INTO incidents (
    incident_id, aggregation_key, protocol_name, chain, exploit_class, status, servable,
    first_seen_at, first_seen_at_text, detected_at, detected_at_text, slug, matched_protocol,
    loss_estimate_usd, victim_addresses, confidence_bps, resolved_at, resolved_at_text, resolution
  ) VALUES (
    ${record.incident_id}, ${key}, ${record.protocol_name}, ${record.chain}, ${record.exploit_class},
    ${record.status}, ${servable},
    ${firstSeen}, ${record.first_seen_at}, ${detected}, ${record.detected_at}, ${record.slug},
    ${record.matched_protocol}, ${record.loss_estimate_usd}::double precision,
    ${[...record.victim_addresses]}::text[], ${record.confidence_bps}, ${resolved}, ${record.resolved_at},
    ${record.resolution}
  )
  ON CONFLICT (incident_id) DO UPDATE SET
    aggregation_key = EXCLUDED.aggregation_key, protocol_name = EXCLUDED.protocol_name,
    chain = EXCLUDED.chain, exploit_class = EXCLUDED.exploit_class, status = EXCLUDED.status,
    servable = EXCLUDED.servable, first_seen_at = EXCLUDED.first_seen_at,
    first_seen_at_text = EXCLUDED.first_seen_at_text, detected_at = EXCLUDED.detected_at,
    detected_at_text = EXCLUDED.detected_at_text, slug = EXCLUDED.slug,
    matched_protocol = EXCLUDED.matched_protocol, loss_estimate_usd = EXCLUDED.loss_estimate_usd,
    victim_addresses = EXCLUDED.victim_addresses, confidence_bps = EXCLUDED.confidence_bps,
    resolved_at = EXCLUDED.resolved_at, resolved_at_text = EXCLUDED.resolved_at_text,
    resolution = EXCLUDED.resolution, updated_at = now()
`

/** The record's sources in place of the stored ones, and its nonces beyond the `storedCount` already stored. */
const writeSourcesAndNonces = (sql: SqlClient.SqlClient, record: IncidentRecord, storedCount: number) =>
  Effect.gen(function* () {
    yield* sql`DELETE FROM incident_sources WHERE incident_id = ${record.incident_id}`
    const [firstSource, ...moreSources] = record.sources.map((s, position) => ({
      incident_id: record.incident_id,
      position,
      handle: s.handle,
      claimed_tier: s.claimed_tier,
      url: s.url ?? null
    }))
    if (firstSource !== undefined) {
      yield* sql`INSERT INTO incident_sources ${sql.insert([firstSource, ...moreSources])}`
    }
    const [firstNonce, ...moreNonces] = record.nonces
      .map((nonce, position) => ({ nonce, incident_id: record.incident_id, position }))
      .slice(storedCount)
    if (firstNonce !== undefined) {
      // The primary key refuses a nonce another incident holds: a concurrent ingest applied it.
      yield* sql`INSERT INTO incident_nonces ${sql.insert([firstNonce, ...moreNonces])}`
    }
  })

export const upsert =
  (sql: SqlClient.SqlClient, lifecycle: IncidentLifecyclePolicy) => (record: IncidentRecord) =>
    Effect.gen(function* () {
      const instants = instantsOf(record)
      if (instants === undefined) {
        return yield* new StoreError({
          message: `incident ${record.incident_id} carries a date-time without a zone`
        })
      }
      const key = lifecycle.aggregation.key(record)
      yield* lockKey(sql, key)
      const stored = yield* storedNonces(
        sql,
        record,
        key,
        instants.firstSeen,
        lifecycle.aggregation.windowMillis
      )
      yield* writeIncident(sql, record, key, lifecycle.toServed(record) !== undefined, instants)
      yield* writeSourcesAndNonces(sql, record, stored?.length ?? 0)
      // The feed's version, bumped at this commit: cached feeds computed before it are never served again.
      yield* notifyChanges(sql, [{ entity_type: "incident", entity_id: record.incident_id }])
    }).pipe(sql.withTransaction, mapSqlError("upsert"), Effect.withSpan("PgIncidentRepository.upsert"))
