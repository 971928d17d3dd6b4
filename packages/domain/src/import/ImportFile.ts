/**
 * The import format: the JSON an operator writes to load ratings data (entities
 * of all seven types, question catalogues, draft scorecards, rating history,
 * incident reports, a quantum snapshot, and publish acts to replay). One file,
 * or a folder of files read in name order, is validated as a whole before
 * anything is written. Its JSON Schema (docs/import-format.schema.json) is
 * generated from these schemas; docs/import-format.md gives the rules that a
 * schema cannot express. Unknown keys are refused (`ImportDecodeOptions`).
 */
import { Schema } from "effect"
import { Answer } from "../model/Answer.ts"
import { DomainWeights } from "../model/DomainWeights.ts"
import { Bridge, Chain, Oracle, Organisation, Protocol, Token, Vault } from "../model/Entity.ts"
import { EntityType, EntityTypes } from "../model/EntityType.ts"
import { IncidentReport, zonedDateTime } from "../model/Incident.ts"
import { IsoDateTime, Percent, PositiveInt, Slug, Uuid } from "../model/Primitives.ts"
import { Question, QuestionId } from "../model/Question.ts"
import { EvidenceItem, HistoryEntry } from "../model/Responses.ts"

export const ImportFormatVersion = "ratings-import/v1"

/**
 * Decode options of every import file: all errors at once, unknown keys
 * refused (a misspelt optional key would otherwise be dropped without a word,
 * and an entity silently scored on default weights).
 */
export const ImportDecodeOptions = { errors: "all", onExcessProperty: "error" } as const

const tagged = <T extends string, S extends Schema.Top>(type: T, record: S) =>
  Schema.Struct({
    entity_type: Schema.Literal(type),
    record,
    domain_weights: Schema.optionalKey(DomainWeights)
  })

const IdOrDerived = Schema.optionalKey(
  Uuid.annotate({
    description:
      "Optional: left out, it is the stored entity's of this type and slug, else derived from type and slug"
  })
)

const withOptionalId = { unsafePreserveChecks: true } as const
// Each record as an import gives it: its `id` may be left out (ImportIds.ts); the record's checks still hold.
const ImportProtocol = Protocol.mapFields((f) => ({ ...f, id: IdOrDerived }), withOptionalId)
const ImportChain = Chain.mapFields((f) => ({ ...f, id: IdOrDerived }), withOptionalId)
const ImportToken = Token.mapFields((f) => ({ ...f, id: IdOrDerived }), withOptionalId)
const ImportOracle = Oracle.mapFields((f) => ({ ...f, id: IdOrDerived }), withOptionalId)
const ImportVault = Vault.mapFields((f) => ({ ...f, id: IdOrDerived }), withOptionalId)
const ImportOrganisation = Organisation.mapFields((f) => ({ ...f, id: IdOrDerived }), withOptionalId)
const ImportBridge = Bridge.mapFields((f) => ({ ...f, id: IdOrDerived }), withOptionalId)

/** One entity: its type, its public record, and optionally the domain weights it is scored on. */
export const ImportEntity = Schema.Union([
  tagged("protocol", ImportProtocol.annotate({ identifier: "ImportProtocol" })),
  tagged("chain", ImportChain.annotate({ identifier: "ImportChain" })),
  tagged("token", ImportToken.annotate({ identifier: "ImportToken" })),
  tagged("oracle", ImportOracle.annotate({ identifier: "ImportOracle" })),
  tagged("vault", ImportVault.annotate({ identifier: "ImportVault" })),
  tagged("organisation", ImportOrganisation.annotate({ identifier: "ImportOrganisation" })),
  tagged("bridge", ImportBridge.annotate({ identifier: "ImportBridge" }))
]).annotate({
  identifier: "ImportEntity",
  description:
    "An entity record of one of the seven types, keyed by its UUID id (upserted); the id may be left out",
  message: `an entity is an object with entity_type (one of ${EntityTypes.join(", ")}) and the record of that type`
})
/** An entity as decoded from a file: its record's id may be missing. */
export type ImportEntityInput = typeof ImportEntity.Type
/** An entity with its id known: given, the stored one of its slug, or derived. */
export type ImportEntity = ImportEntityInput extends infer E
  ? E extends { readonly record: infer R }
    ? Omit<E, "record"> & { readonly record: Omit<R, "id"> & { readonly id: string } }
    : never
  : never

/** An answer as an import gives it: its `id` may be left out (derived from its scorecard and question). */
export const ImportAnswer = Answer.mapFields(
  (fields) => ({
    ...fields,
    id: Schema.optionalKey(
      Uuid.annotate({ description: "Optional: left out, it is derived from the scorecard and the question" })
    )
  }),
  { unsafePreserveChecks: true }
).annotate({ identifier: "ImportAnswer" })

/** A history entry as an import gives it: `scorecard_id` may be left out (derived like a scorecard's id). */
export const ImportHistoryEntry = HistoryEntry.mapFields(
  (fields) => ({
    ...fields,
    scorecard_id: Schema.optionalKey(
      Uuid.annotate({ description: "Optional: left out, it is derived from the entity and the version" })
    )
  }),
  { unsafePreserveChecks: true }
).annotate({ identifier: "ImportHistoryEntry" })

/** Which entity a scorecard, history entry or publication concerns: by slug (as in the file or database). */
export const ImportEntityRef = Schema.Struct({ entity_type: EntityType, slug: Slug })

export const ImportDependency = Schema.Struct({
  entity_type: EntityType,
  slug: Slug,
  exposure: Schema.Finite.annotate({
    description: "Share of the entity exposed to this dependency, above 0 and at most 1"
  }).check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1))
}).annotate({
  identifier: "ImportDependency",
  description: "An entity this one depends on; its published composite drags the headline when lower"
})
export type ImportDependency = typeof ImportDependency.Type

export const ImportEvidence = Schema.Struct({
  question_id: QuestionId,
  evidence: Schema.Array(EvidenceItem),
  reasoning: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ImportEvidence", description: "Evidence and reasoning behind one answer" })
export type ImportEvidence = typeof ImportEvidence.Type

/**
 * A draft scorecard. Figures are not imported: the scoring core computes them
 * when the draft is published (a claimed composite_score, when given, must agree).
 */
export const ImportScorecard = Schema.Struct({
  id: Schema.optionalKey(
    Uuid.annotate({
      description:
        "Optional: left out, it is the stored scorecard's of this entity and version, else derived from them"
    })
  ),
  ...ImportEntityRef.fields,
  scorecard_version: PositiveInt,
  domain_weights: Schema.optionalKey(DomainWeights),
  answers: Schema.Array(ImportAnswer),
  evidence: Schema.optionalKey(Schema.Array(ImportEvidence)),
  dependencies: Schema.optionalKey(Schema.Array(ImportDependency)),
  composite_score: Schema.optionalKey(
    Schema.NullOr(Percent).annotate({
      description:
        "Optional claim of the headline composite; publishing refuses a draft whose claim the core does not reproduce"
    })
  )
}).annotate({
  identifier: "ImportScorecard",
  description:
    "A draft scorecard, keyed by its UUID id; a stored published or superseded one is left as it is"
})
export type ImportScorecardInput = typeof ImportScorecard.Type
/** A draft with its id and its answers' ids known. */
export type ImportScorecard = Omit<ImportScorecardInput, "id" | "answers"> & {
  readonly id: string
  readonly answers: ReadonlyArray<Answer>
}

export const ImportHistory = Schema.Struct({
  ...ImportEntityRef.fields,
  entries: Schema.Array(ImportHistoryEntry)
}).annotate({
  identifier: "ImportHistory",
  description: "Rating history entries of one entity (ratings that predate the service), keyed by version"
})
export type ImportHistoryInput = typeof ImportHistory.Type
/** History with every entry's scorecard_id known. */
export type ImportHistory = Omit<ImportHistoryInput, "entries"> & {
  readonly entries: ReadonlyArray<HistoryEntry>
}

export const ImportQuantumSnapshot = Schema.Struct({
  as_of: IsoDateTime,
  sample: Schema.Boolean.annotate({ description: "True when the rows are sample data, not a real reading" }),
  rows: Schema.Array(Schema.Unknown).annotate({
    description:
      "Rows as the source publishes them; malformed rows are skipped and counted, as on a live refresh"
  })
}).annotate({
  identifier: "ImportQuantumSnapshot",
  description: "A quantum-readiness snapshot; skipped when the latest stored snapshot has the same as_of"
})
export type ImportQuantumSnapshot = typeof ImportQuantumSnapshot.Type

/**
 * An incident report as ingest takes it, and optionally when the service
 * received it: the report is ingested with the clock at that instant, as a
 * publication is replayed at its published_at, so an incident it creates or
 * escalates is detected then. Without it, the report is received at the time
 * of the import.
 */
export const ImportIncident = Schema.Struct({
  ...IncidentReport.fields,
  received_at: Schema.optionalKey(
    zonedDateTime(
      "When the service received the report (default: the time of the import); the incident's detected_at " +
        "when this report creates or escalates it. Not earlier than first_seen_at, and not earlier than the " +
        "received_at of any report before it"
    )
  )
}).annotate({
  identifier: "ImportIncident",
  description:
    "An incident report, ingested in order as of its received_at; a nonce already ingested is ignored"
})
export type ImportIncident = typeof ImportIncident.Type

/** A publish act to replay after the import (demo data uses it to build version history). */
export const ImportPublication = Schema.Struct({
  ...ImportEntityRef.fields,
  scorecard_version: PositiveInt,
  published_at: IsoDateTime,
  reasoning: Schema.String,
  actor: Schema.String
}).annotate({
  identifier: "ImportPublication",
  description:
    "Publishes that version as of published_at, in file order; skipped when it is already published"
})
export type ImportPublication = typeof ImportPublication.Type

export const ImportFile = Schema.Struct({
  $schema: Schema.optionalKey(
    Schema.String.annotate({ description: "Optional: where editors find this schema (ignored)" })
  ),
  format: Schema.Literal(ImportFormatVersion),
  description: Schema.optionalKey(Schema.String),
  entities: Schema.optionalKey(Schema.Array(ImportEntity)),
  questions: Schema.optionalKey(
    Schema.Array(Question).annotate({
      description:
        "Question catalogues: each type's questions merge into its stored catalogue by id (ratings import --replace questions: replace it)"
    })
  ),
  scorecards: Schema.optionalKey(Schema.Array(ImportScorecard)),
  history: Schema.optionalKey(Schema.Array(ImportHistory)),
  incidents: Schema.optionalKey(
    Schema.Array(ImportIncident).annotate({
      description: "Incident reports, ingested in order; a nonce already ingested is ignored"
    })
  ),
  quantum_snapshot: Schema.optionalKey(ImportQuantumSnapshot),
  publications: Schema.optionalKey(Schema.Array(ImportPublication))
}).annotate({
  identifier: "ImportFile",
  message: `an import file is a JSON object with "format": "${ImportFormatVersion}"`,
  title: "Ratings service import file",
  description: `An import file of the ratings service (format ${ImportFormatVersion})`
})
export type ImportFile = typeof ImportFile.Type

/** The array sections of a file, each with the schema of one item. */
export const ImportSections = {
  entities: ImportEntity,
  questions: Question,
  scorecards: ImportScorecard,
  history: ImportHistory,
  incidents: ImportIncident,
  publications: ImportPublication
} as const
export type ImportSectionName = keyof typeof ImportSections
