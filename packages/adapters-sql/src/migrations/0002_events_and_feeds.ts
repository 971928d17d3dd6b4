/**
 * Tables of the event side: hack incidents (with their report nonces and
 * sources), alert rules, the webhook delivery outbox and its attempt log, and
 * quantum-readiness snapshots and refresh outcomes. Enumerations are written
 * out in CHECKs rather than read from the domain's constants: a migration is
 * a frozen record of what it created. Incident and quantum instants are
 * stored twice, as timestamptz for queries and order and as the text the
 * record carried, served back as given; instants the service writes itself
 * (deliveries, rules) need only timestamptz.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Hack incidents, with their report nonces and sources. */
const incidents = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    yield* sql`
      CREATE TABLE incidents (
        incident_id uuid PRIMARY KEY,
        -- aggregationKey() of the domain: reports with the same key and a close first_seen_at
        -- aggregate into one incident; writers lock on it.
        aggregation_key text NOT NULL,
        protocol_name text NOT NULL,
        chain text,
        exploit_class text NOT NULL,
        status text CHECK (status IN ('rumored', 'corroborated', 'confirmed')),
        -- toServed(record) !== undefined, decided by the domain when the record is written.
        servable boolean NOT NULL,
        first_seen_at timestamptz NOT NULL,
        first_seen_at_text text NOT NULL,
        detected_at timestamptz,
        detected_at_text text,
        slug text,
        matched_protocol boolean NOT NULL,
        loss_estimate_usd double precision CHECK (loss_estimate_usd >= 0),
        victim_addresses text[] NOT NULL DEFAULT '{}',
        confidence_bps integer CHECK (confidence_bps BETWEEN 0 AND 10000),
        resolved_at timestamptz,
        resolved_at_text text,
        resolution text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((detected_at IS NULL) = (detected_at_text IS NULL)),
        CHECK ((resolved_at IS NULL) = (resolved_at_text IS NULL)),
        CHECK (NOT servable OR (status IS NOT NULL AND detected_at IS NOT NULL))
      )
    `
    yield* sql`CREATE INDEX incidents_feed ON incidents (detected_at DESC, incident_id) WHERE servable`
    yield* sql`CREATE INDEX incidents_aggregation ON incidents (aggregation_key, first_seen_at)`
    yield* sql`CREATE INDEX incidents_slug ON incidents (slug, detected_at DESC) WHERE servable`

    // One row per ingest nonce ever applied: the primary key is what makes "the same
    // nonce twice changes nothing" hold across processes.
    yield* sql`
      CREATE TABLE incident_nonces (
        nonce text PRIMARY KEY CHECK (nonce <> ''),
        incident_id uuid NOT NULL REFERENCES incidents (incident_id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 0),
        UNIQUE (incident_id, position)
      )
    `

    yield* sql`
      CREATE TABLE incident_sources (
        incident_id uuid NOT NULL REFERENCES incidents (incident_id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 0),
        handle text NOT NULL,
        claimed_tier text NOT NULL CHECK (claimed_tier IN ('rumored', 'corroborated', 'confirmed')),
        url text,
        PRIMARY KEY (incident_id, position),
        UNIQUE (incident_id, handle)
      )
    `
  })

/** Alert rules, the signing key sealed. */
const alertRules = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    yield* sql`
      CREATE TABLE alert_rules (
        id uuid PRIMARY KEY,
        -- Creation order, which lists follow; created_at alone can tie.
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        account_id text NOT NULL CHECK (account_id <> ''),
        name text CHECK (char_length(name) <= 200),
        entity_types text[] NOT NULL DEFAULT '{}'
          CHECK (entity_types <@ ARRAY['protocol', 'chain', 'token', 'oracle', 'vault', 'organisation', 'bridge']),
        slugs text[] NOT NULL DEFAULT '{}',
        events text[] NOT NULL DEFAULT '{}'
          CHECK (events <@ ARRAY['rating.changed', 'rating.grade_transition', 'rating.new']),
        webhook_url text NOT NULL CHECK (webhook_url ~ '^https?://' AND char_length(webhook_url) <= 2048),
        -- SecretBox sealed text, never the key itself.
        signing_key_sealed text NOT NULL CHECK (signing_key_sealed LIKE 'v1:%'),
        created_at timestamptz NOT NULL
      )
    `
    yield* sql`CREATE INDEX alert_rules_account ON alert_rules (account_id, seq)`
  })

/** The webhook delivery outbox and its attempt log. */
const deliveryOutbox = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    // No foreign key to alert_rules: a delivery and its attempts are the record of what
    // was sent, kept when the rule is deleted (the dispatcher then finds no key and the
    // delivery fails), and the outbox port takes any rule id.
    yield* sql`
      CREATE TABLE webhook_deliveries (
        delivery_id uuid PRIMARY KEY,
        -- Enqueue order: "newest first" lists and ties of next_attempt_at follow it.
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        rule_id uuid NOT NULL,
        event text NOT NULL
          CHECK (event IN ('rating.changed', 'rating.grade_transition', 'rating.new', 'webhook.test')),
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        cycle integer NOT NULL CHECK (cycle >= 0),
        attempts integer NOT NULL CHECK (attempts >= 0),
        next_attempt_at timestamptz,
        first_attempt_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL,
        -- A claim is a lease: claimed until then; NULL or past means claimable.
        leased_until timestamptz,
        CHECK (status <> 'pending' OR next_attempt_at IS NOT NULL)
      )
    `
    yield* sql`
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, seq) WHERE status = 'pending'
    `
    yield* sql`CREATE INDEX webhook_deliveries_rule ON webhook_deliveries (rule_id, seq DESC)`
    yield* sql`CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (seq DESC) WHERE status = 'failed'`

    // The primary key is a second guard that one attempt is never recorded twice.
    yield* sql`
      CREATE TABLE webhook_delivery_attempts (
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries (delivery_id) ON DELETE CASCADE,
        cycle integer NOT NULL CHECK (cycle >= 0),
        attempt integer NOT NULL CHECK (attempt BETWEEN 0 AND 5),
        started_at timestamptz NOT NULL,
        status_code integer,
        outcome text NOT NULL
          CHECK (outcome IN ('delivered', 'http_error', 'late_response', 'timeout', 'network_error')),
        error text,
        duration_ms integer NOT NULL CHECK (duration_ms >= 0),
        PRIMARY KEY (delivery_id, cycle, attempt)
      )
    `
  })

/** Quantum-readiness snapshots and refresh outcomes. */
const quantumReadiness = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    // Append-only: the latest row is the one served; older rows are history.
    yield* sql`
      CREATE TABLE quantum_snapshots (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        rows jsonb NOT NULL CHECK (jsonb_typeof(rows) = 'array'),
        rows_skipped integer NOT NULL CHECK (rows_skipped >= 0),
        as_of timestamptz NOT NULL,
        as_of_text text NOT NULL,
        expires_at timestamptz NOT NULL,
        expires_at_text text NOT NULL,
        source text NOT NULL,
        source_url text NOT NULL,
        -- NULL: the snapshot did not say (the shipped sample says true).
        sample boolean,
        saved_at timestamptz NOT NULL DEFAULT now()
      )
    `
    yield* sql`
      CREATE TABLE quantum_refresh_outcomes (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL,
        at_text text NOT NULL,
        ok boolean NOT NULL,
        error text,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )
    `
  })

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* incidents(sql)
  yield* alertRules(sql)
  yield* deliveryOutbox(sql)
  yield* quantumReadiness(sql)
})
