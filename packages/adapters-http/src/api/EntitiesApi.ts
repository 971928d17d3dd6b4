/**
 * The per-entity read routes of spec part 2 and part 4, for each of the seven
 * types: list, detail, scorecard list, domains and history (Pro), questions,
 * rubric and evidence (Enterprise), and the type's scorecard-by-id path
 * (Enterprise). One group per type, named by its list segment, so the typed
 * client reads `client.protocols.list(...)`, `client.tokens.detail(...)`.
 *
 * The groups are built by one function from the domain's tables (PluralOf,
 * ScorecardByIdSegment, EntityRecordSchemas, Capabilities), typed per type:
 * the detail of /tokens is the Token schema, of /bridges the Bridge schema.
 */
import { type Capability, Capabilities } from "@ratings/domain/access/Capabilities"
import { EntityRecordSchemas } from "@ratings/domain/model/Entity"
import { type EntityType, PluralOf, ScorecardByIdSegment } from "@ratings/domain/model/EntityType"
import {
  DomainsBody,
  EvidenceBody,
  HistoryBody,
  ListOf,
  QuestionsBody,
  RubricBody
} from "@ratings/domain/model/Responses"
import { Scorecard, ScorecardDetail } from "@ratings/domain/model/Scorecard"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { GatedReadErrors, ListErrors, ReadErrors } from "./Errors.ts"
import { both, documentExamples, entityParameters } from "./Examples.ts"
import { EntityExamples, type EntityRoute } from "./examples/index.ts"
import {
  DetailQueryFields,
  documentParameters,
  ListParameterDocs,
  ListQueryFields,
  type ParameterDocs,
  PathParameterDocs,
  SlugParam,
  UuidParam
} from "./Parameters.ts"

const Label: { readonly [T in EntityType]: string } = {
  protocol: "Protocol",
  chain: "Chain",
  token: "Token",
  oracle: "Oracle",
  vault: "Vault",
  organisation: "Organisation",
  bridge: "Bridge"
}

/** One list schema per type, built once so the document holds one component each. */
const RecordLists = {
  protocol: ListOf(EntityRecordSchemas.protocol, { identifier: "ProtocolList" }),
  chain: ListOf(EntityRecordSchemas.chain, { identifier: "ChainList" }),
  token: ListOf(EntityRecordSchemas.token, { identifier: "TokenList" }),
  oracle: ListOf(EntityRecordSchemas.oracle, { identifier: "OracleList" }),
  vault: ListOf(EntityRecordSchemas.vault, { identifier: "VaultList" }),
  organisation: ListOf(EntityRecordSchemas.organisation, { identifier: "OrganisationList" }),
  bridge: ListOf(EntityRecordSchemas.bridge, { identifier: "BridgeList" })
} as const

export const ScorecardList = ListOf(Scorecard, {
  identifier: "ScorecardList",
  description:
    "Scorecards of one entity. Anonymous and Free callers get the latest published scorecard only, with " +
    "domain_scores and mvc_gates null ({items: [], total: 0} when unrated); Pro and Enterprise get the " +
    "full published version history, newest first."
})

const tierNote = (capability: Capability): string => {
  const tier = Capabilities[capability]
  return tier === "anonymous" ? "Public." : `Tier: ${tier[0]!.toUpperCase()}${tier.slice(1)} and above.`
}

const describe = (
  type: EntityType,
  capability: EntityRoute,
  summary: string,
  description: string,
  docs: ParameterDocs = PathParameterDocs
) =>
  OpenApi.annotations({
    summary,
    description: `${description} ${tierNote(capability)}`,
    override: { "x-required-tier": Capabilities[capability] },
    transform: both(
      documentParameters(docs),
      documentExamples({
        parameters: entityParameters(type),
        responses: { 200: EntityExamples[type][capability] }
      })
    )
  })

const listEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  return HttpApiEndpoint.get("list", `/${name}`, {
    query: ListQueryFields[type],
    success: RecordLists[type],
    error: ListErrors
  }).annotateMerge(
    describe(
      type,
      "list",
      `List ${name}`,
      `Public records of type ${type}: private and inactive records are hidden. total is the ` +
        "count of every match under the same filter. Parameters that do not apply to this type are ignored.",
      ListParameterDocs
    )
  )
}

const detailEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  const label = Label[type]
  const record = EntityRecordSchemas[type]
  return HttpApiEndpoint.get("detail", `/${name}/:identifier`, {
    params: { identifier: PathParameterDocs.identifier.schema },
    query: DetailQueryFields,
    success: record,
    error: ReadErrors
  }).annotateMerge(
    describe(
      type,
      "detail",
      `${label} by id or slug`,
      "One record by UUID id or slug (a UUID parse is tried first). Private and inactive records " +
        "answer 404.",
      { ...PathParameterDocs, include_inactive: ListParameterDocs.include_inactive }
    )
  )
}

const scorecardsEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  return HttpApiEndpoint.get("scorecards", `/${name}/:id_or_slug/scorecards`, {
    params: { id_or_slug: PathParameterDocs.id_or_slug.schema },
    success: ScorecardList,
    error: ReadErrors
  }).annotateMerge(
    describe(
      type,
      "scorecards",
      `Scorecards of a ${type}`,
      "The entity's scorecards by UUID id or slug. A non-published entity answers 404 for non-admin " +
        "callers, exactly like an unknown slug."
    )
  )
}

const domainsEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  return HttpApiEndpoint.get("domains", `/${name}/:slug/domains`, {
    params: { slug: SlugParam },
    success: DomainsBody,
    error: GatedReadErrors
  }).annotateMerge(
    describe(
      type,
      "domains",
      `Domain breakdown of a ${type}`,
      "Per-domain scores (0-1 fractions) and composites (0-100) of the latest published scorecard."
    )
  )
}

const historyEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  return HttpApiEndpoint.get("history", `/${name}/:slug/history`, {
    params: { slug: SlugParam },
    success: HistoryBody,
    error: GatedReadErrors
  }).annotateMerge(
    describe(type, "history", `Rating history of a ${type}`, "Every published version, with its reasoning.")
  )
}

const questionsEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  return HttpApiEndpoint.get("questions", `/${name}/:slug/questions`, {
    params: { slug: SlugParam },
    success: QuestionsBody,
    error: GatedReadErrors
  }).annotateMerge(
    describe(
      type,
      "questions",
      `Per-question scores of a ${type}`,
      "Scores and rationale per question with per-question weight, the domain_weights map, " +
        "scorecard_version and scorecard_published_at."
    )
  )
}

const rubricEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  return HttpApiEndpoint.get("rubric", `/${name}/:slug/rubric`, {
    params: { slug: SlugParam },
    success: RubricBody,
    error: GatedReadErrors
  }).annotateMerge(
    describe(
      type,
      "rubric",
      `Rubric of a ${type}`,
      "Per-question criteria, with per-question weight and domain_weights."
    )
  )
}

const evidenceEndpoint = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  return HttpApiEndpoint.get("evidence", `/${name}/:slug/evidence`, {
    params: { slug: SlugParam },
    success: EvidenceBody,
    error: GatedReadErrors
  }).annotateMerge(
    describe(
      type,
      "evidence",
      `Evidence of a ${type}`,
      "Evidence and reasoning trails, with per-question weight and domain_weights."
    )
  )
}

const scorecardByIdEndpoint = <T extends EntityType>(type: T) => {
  const label = Label[type]
  return HttpApiEndpoint.get("scorecardById", `/${ScorecardByIdSegment[type]}/:scorecard_id`, {
    params: { scorecard_id: UuidParam },
    success: ScorecardDetail,
    error: GatedReadErrors
  }).annotateMerge(
    describe(
      type,
      "scorecard_by_id",
      `${label} scorecard by id`,
      "One scorecard by UUID with domain_weights and the full per-answer array."
    )
  )
}

/**
 * The routes of one type. `name` must be the type's list segment; it is passed
 * as a literal so the group (and the client's property) is typed by it.
 */
const entityGroup = <T extends EntityType, const Name extends string>(type: T, name: Name) => {
  if (PluralOf[type] !== name) throw new Error(`Group ${name} is not the list segment of ${type}`)
  return HttpApiGroup.make(name)
    .add(
      listEndpoint(type, name),
      detailEndpoint(type, name),
      scorecardsEndpoint(type, name),
      domainsEndpoint(type, name),
      historyEndpoint(type, name),
      questionsEndpoint(type, name),
      rubricEndpoint(type, name),
      evidenceEndpoint(type, name),
      scorecardByIdEndpoint(type)
    )
    .annotateMerge(OpenApi.annotations({ title: `${Label[type]}s` }))
}

export class ProtocolsApi extends entityGroup("protocol", "protocols") {}
export class ChainsApi extends entityGroup("chain", "chains") {}
export class TokensApi extends entityGroup("token", "tokens") {}
export class OraclesApi extends entityGroup("oracle", "oracles") {}
export class VaultsApi extends entityGroup("vault", "vaults") {}
export class OrganisationsApi extends entityGroup("organisation", "organisations") {}
export class BridgesApi extends entityGroup("bridge", "bridges") {}

/** The group of each type, keyed by type: handlers and tests walk it. */
export const EntityGroups = {
  protocol: ProtocolsApi,
  chain: ChainsApi,
  token: TokensApi,
  oracle: OraclesApi,
  vault: VaultsApi,
  organisation: OrganisationsApi,
  bridge: BridgesApi
} as const
