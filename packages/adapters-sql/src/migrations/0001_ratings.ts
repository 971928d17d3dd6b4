/**
 * Migration 0001: the ratings side of the schema. Entities of the seven types,
 * question catalogues, scorecards with their answers and evidence, the rating
 * history, API keys and the export log. Enumerations are written out rather
 * than imported from the domain: a migration is a snapshot, and it must not
 * change when the code does. Each index says which queries it serves.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const entityTypes = `('protocol', 'chain', 'token', 'oracle', 'vault', 'organisation', 'bridge')`
const grades = `('AAA', 'AA', 'A', 'BBB', 'B', 'C', 'D')`
/** Finite and within bounds: NaN sorts above infinity in Postgres, so an upper bound excludes both. */
const positiveFinite = (column: string) => `CHECK (${column} > 0 AND ${column} < 'infinity')`
const percent = (column: string) => `CHECK (${column} BETWEEN 0 AND 100)`
const grade = (column: string) => `CHECK (${column} IN ${grades})`
const jsonObject = (column: string) => `CHECK (jsonb_typeof(${column}) = 'object')`
const jsonArray = (column: string) => `CHECK (jsonb_typeof(${column}) = 'array')`

const statements: ReadonlyArray<string> = [
  `CREATE TABLE entities (
    id uuid PRIMARY KEY,
    entity_type text NOT NULL CHECK (entity_type IN ${entityTypes}),
    slug text COLLATE "C" NOT NULL CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
    name text NOT NULL,
    status text NOT NULL CHECK (status IN ('draft', 'scoring', 'approved', 'published')),
    categories text[] NOT NULL DEFAULT '{}' CHECK (categories::text = lower(categories::text)),
    chains jsonb NOT NULL DEFAULT '[]' ${jsonArray("chains")},
    urls jsonb NOT NULL DEFAULT '{}' ${jsonObject("urls")},
    external_ids jsonb NOT NULL DEFAULT '{}' ${jsonObject("external_ids")},
    description text,
    is_active boolean NOT NULL,
    is_private boolean NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    domain_weights jsonb CHECK (domain_weights IS NULL OR jsonb_typeof(domain_weights) = 'object'),
    curator_id uuid,
    is_framework boolean NOT NULL DEFAULT false,
    details jsonb NOT NULL DEFAULT '{}' ${jsonObject("details")},
    chain_slugs text[] NOT NULL DEFAULT '{}',
    name_lower text NOT NULL,
    symbol_lower text,
    CONSTRAINT entities_slug_unique UNIQUE (entity_type, slug) DEFERRABLE INITIALLY IMMEDIATE,
    CONSTRAINT entities_id_type UNIQUE (id, entity_type),
    CONSTRAINT entities_vault_fields CHECK (entity_type = 'vault' OR (curator_id IS NULL AND NOT is_framework)),
    CONSTRAINT entities_single_category CHECK (entity_type NOT IN ('protocol', 'oracle') OR cardinality(categories) <= 1),
    CONSTRAINT entities_token_fields CHECK (entity_type <> 'token' OR (details ? 'symbol' AND details ? 'chain')),
    CONSTRAINT entities_bridge_fields CHECK (entity_type <> 'bridge' OR details ? 'has_message_attestation')
  )`,
  `COMMENT ON COLUMN entities.details IS 'The type''s own fields (token symbol, contract_address and chain; bridge security fields; vault curator; chain chain_id)'`,
  `COMMENT ON COLUMN entities.chain_slugs IS 'Derived on write: slugs of chains[] and of a token''s chain, for the indexed chain filter'`,
  `COMMENT ON COLUMN entities.name_lower IS 'Derived on write with JavaScript toLowerCase, so search matches the domain rule whatever the server locale'`,
  // The public list of a type (ORDER BY slug, id; LIMIT/OFFSET walks it in order), its count,
  // and `published`. entities_slug_unique serves lookups by slug and the admin lists.
  `CREATE INDEX entities_listed ON entities (entity_type, slug, id) WHERE is_active AND NOT is_private AND status = 'published'`,
  // The `chain` and `category` filters, and the vault `curator_id` filter.
  `CREATE INDEX entities_chain_slugs ON entities USING gin (chain_slugs)`,
  `CREATE INDEX entities_categories ON entities USING gin (categories)`,
  `CREATE INDEX entities_curator ON entities (curator_id) WHERE curator_id IS NOT NULL`,
  // Trigram index for the substring search of lists (the `search` filter), where the server offers
  // pg_trgm (a trusted extension since Postgres 13). Without it search still works, scanning the rows.
  `DO $$ BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN insufficient_privilege OR undefined_file THEN
    RAISE NOTICE 'pg_trgm is not available: list search runs without a trigram index';
  END $$`,
  `DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
      CREATE INDEX entities_search ON entities
        USING gin (name_lower gin_trgm_ops, slug gin_trgm_ops, symbol_lower gin_trgm_ops);
    END IF;
  EXCEPTION WHEN undefined_object THEN
    RAISE NOTICE 'pg_trgm operator classes are not on the search path: no trigram index';
  END $$`,

  `CREATE TABLE questions (
    entity_type text NOT NULL CHECK (entity_type IN ${entityTypes}),
    id text NOT NULL CHECK (id <> ''),
    position integer NOT NULL CHECK (position >= 0),
    domain text NOT NULL CHECK (domain <> ''),
    text text NOT NULL,
    weight double precision NOT NULL ${positiveFinite("weight")},
    max_score double precision NOT NULL ${positiveFinite("max_score")},
    criteria jsonb NOT NULL ${jsonArray("criteria")},
    gate text,
    PRIMARY KEY (entity_type, id),
    CONSTRAINT questions_position_unique UNIQUE (entity_type, position),
    CONSTRAINT questions_gate_on_chains CHECK (entity_type = 'chain' OR gate IS NULL)
  )`,

  `CREATE TABLE scorecards (
    id uuid PRIMARY KEY,
    entity_type text NOT NULL,
    entity_id uuid NOT NULL,
    scorecard_version integer NOT NULL CHECK (scorecard_version >= 1),
    status text NOT NULL CHECK (status IN ('draft', 'published', 'superseded')),
    grade text ${grade("grade")},
    letter_grade text ${grade("letter_grade")},
    composite_score double precision ${percent("composite_score")},
    intrinsic_composite_score double precision ${percent("intrinsic_composite_score")},
    intrinsic_letter_grade text ${grade("intrinsic_letter_grade")},
    largest_drag_hint text,
    has_unrated_dependencies boolean NOT NULL,
    domain_scores jsonb CHECK (domain_scores IS NULL OR jsonb_typeof(domain_scores) = 'object'),
    mvc_gates jsonb CHECK (mvc_gates IS NULL OR jsonb_typeof(mvc_gates) = 'object'),
    domain_weights jsonb NOT NULL ${jsonObject("domain_weights")},
    dependencies jsonb NOT NULL DEFAULT '[]' ${jsonArray("dependencies")},
    last_rated_at timestamptz,
    scorecard_published_at timestamptz,
    CONSTRAINT scorecards_entity FOREIGN KEY (entity_id, entity_type) REFERENCES entities (id, entity_type),
    CONSTRAINT scorecards_entity_version UNIQUE (entity_id, scorecard_version),
    CONSTRAINT scorecards_mvc_gates_on_chains CHECK (entity_type = 'chain' OR mvc_gates IS NULL),
    CONSTRAINT scorecards_drag_only_reduces CHECK (
      composite_score IS NULL OR intrinsic_composite_score IS NULL
      OR composite_score <= intrinsic_composite_score + 1e-9
    )
  )`,
  // At most one published scorecard per entity, and `latestPublishedOf` (entity_id = ANY(...) AND
  // status = 'published'). scorecards_entity_version serves listForEntity, latest, history by version.
  `CREATE UNIQUE INDEX scorecards_one_published ON scorecards (entity_id) WHERE status = 'published'`,

  `CREATE TABLE answers (
    scorecard_id uuid NOT NULL REFERENCES scorecards (id) ON DELETE CASCADE,
    position integer NOT NULL CHECK (position >= 0),
    id uuid NOT NULL,
    question_id text NOT NULL CHECK (question_id <> ''),
    domain text,
    score double precision CHECK (score >= 0),
    max_score double precision NOT NULL ${positiveFinite("max_score")},
    weight double precision NOT NULL ${positiveFinite("weight")},
    confidence text CHECK (confidence IN ('high', 'medium', 'low', 'not_applicable')),
    response text,
    rationale text,
    PRIMARY KEY (scorecard_id, position),
    CONSTRAINT answers_score_within_max CHECK (score <= max_score),
    CONSTRAINT answers_not_applicable_unscored CHECK (confidence IS DISTINCT FROM 'not_applicable' OR score IS NULL)
  )`,

  `CREATE TABLE evidence (
    scorecard_id uuid NOT NULL REFERENCES scorecards (id) ON DELETE CASCADE,
    position integer NOT NULL CHECK (position >= 0),
    question_id text NOT NULL CHECK (question_id <> ''),
    items jsonb NOT NULL ${jsonArray("items")},
    reasoning text,
    PRIMARY KEY (scorecard_id, position)
  )`,

  `CREATE TABLE rating_history (
    entity_id uuid NOT NULL REFERENCES entities (id),
    scorecard_version integer NOT NULL CHECK (scorecard_version >= 1),
    scorecard_id uuid NOT NULL,
    grade text ${grade("grade")},
    letter_grade text ${grade("letter_grade")},
    composite_score double precision ${percent("composite_score")},
    intrinsic_composite_score double precision ${percent("intrinsic_composite_score")},
    intrinsic_letter_grade text ${grade("intrinsic_letter_grade")},
    published_at timestamptz NOT NULL,
    reasoning text NOT NULL,
    changed_by text,
    PRIMARY KEY (entity_id, scorecard_version)
  )`,

  `CREATE TABLE api_keys (
    id text PRIMARY KEY,
    name text NOT NULL,
    tier text NOT NULL CHECK (tier IN ('free', 'pro', 'enterprise')),
    account_id text NOT NULL,
    prefix text NOT NULL CHECK (char_length(prefix) <= 12),
    hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL,
    revoked_at timestamptz,
    CONSTRAINT api_keys_hash_unique UNIQUE (hash)
  )`,
  `COMMENT ON COLUMN api_keys.hash IS 'SHA-256 hex digest of the key; the key itself is never stored'`,

  `CREATE TABLE export_log (
    export_id uuid PRIMARY KEY,
    account_id text NOT NULL,
    entity_type text NOT NULL CHECK (entity_type IN ${entityTypes}),
    format text NOT NULL CHECK (format IN ('csv', 'json')),
    fields text[] NOT NULL,
    row_count integer NOT NULL CHECK (row_count >= 0),
    created_at timestamptz NOT NULL
  )`,
  // The quota count of one account inside the window.
  `CREATE INDEX export_log_account_time ON export_log (account_id, created_at)`
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
