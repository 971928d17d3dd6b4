/**
 * The tools of the service's MCP server, as Effect AI `Tool` definitions in
 * one `Toolkit`: the names, arguments and bounds of the live service's agent
 * server (api-facts "The live service's agent (MCP) server"), so that an
 * agent's prompts carry over, each with a description an agent can choose by
 * and the input schema tools/list advertises. The older names some arguments
 * still go by are ToolArguments.ts's; what each tool does is ToolHandlers.ts,
 * over the typed client of the HTTP contract, never a request of its own.
 * request_coverage takes its fields with the contract's own schemas (the
 * domain's ContactRequest), under the tool's argument names.
 */
import { IncidentTiers } from "@ratings/domain/incidents/IncidentTier"
import { ContactEmail, ContactEntityName, ContactMessage } from "@ratings/domain/model/ContactRequest"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"

/** list_ratings: the live service's bounds, at most 50 entities (each costs the caller a scorecard read), 25 by default. */
export const MaxListItems = 50
export const DefaultListItems = 25
/** search_ratings: the live service's 10 per type and 15 merged; `limit` (ours, kept) sets both, up to 25. */
export const SearchPerType = 10
export const SearchMerged = 15
export const MaxSearchItems = 25
/** get_recent_incidents: the live service's bounds, as the API's feed. */
export const MaxIncidents = 200
export const DefaultIncidents = 25

const EntityTypeParam = Schema.Literals(EntityTypes).annotate({
  description: "Entity type: protocol, chain, token, oracle, vault, organisation or bridge"
})

/** The first lone surrogate of a text (half of a UTF-16 pair, such as "\ud800"), as `U+D800 at character 3`. */
const loneSurrogateOf = (text: string): string => {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0xd800 || unit > 0xdfff) continue
    const next = text.charCodeAt(i + 1)
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++
    else return `U+${unit.toString(16).toUpperCase()} at character ${i + 1}`
  }
  return "none"
}

/**
 * Text that is well-formed Unicode: a lone surrogate is no character, and no
 * URL (the typed client encodes the tools' identifiers into the API's paths)
 * or stored text can carry it.
 */
const isWellFormed = Schema.makeFilter(
  (text: string) =>
    text.isWellFormed() ||
    `must be well-formed Unicode text: it holds a lone surrogate (${loneSurrogateOf(text)}), half of a UTF-16 pair`
)

const Text = (description: string, maxLength = 200) =>
  Schema.String.check(isWellFormed, Schema.isMinLength(1), Schema.isMaxLength(maxLength)).annotate({
    description
  })

const limitOf = (maximum: number, what: string) =>
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum })).annotate({ description: what })

/** An entity's identifier, as get_rating takes it: its slug or its UUID id. */
const Identifier = Text(
  "The entity's slug, such as aave-v4 or ethereum, or its UUID id. Also accepted under the older names " +
    "`slug` and `id` (the same value under two names is taken; different values are refused)."
)

const readOnly = <T extends Tool.Any>(tool: T): T =>
  tool
    .annotate(Tool.Readonly, true)
    .annotate(Tool.Destructive, false)
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, false) as T

export const ListRatings = readOnly(
  Tool.make("list_ratings", {
    description:
      "List rated entities of one type with each one's letter grade (AAA best to D) and composite score " +
      "(0-100). Filter by category (such as lending or dex) and by chain slug (such as ethereum). Answers the " +
      `total number of matches and the first \`limit\` of them (default ${DefaultListItems}, at most ${MaxListItems}).`,
    parameters: Schema.Struct({
      entity_type: EntityTypeParam,
      category: Schema.optionalKey(Text("Category, such as lending, dex or messaging (lower case)", 100)),
      chain: Schema.optionalKey(
        Text("Chain slug: only entities deployed on that chain, such as ethereum", 100)
      ),
      limit: Schema.optionalKey(
        limitOf(
          MaxListItems,
          `How many entities to answer with, 1 to ${MaxListItems} (default ${DefaultListItems})`
        )
      )
    })
  }).annotate(Tool.Title, "List ratings")
)

export const SearchRatings = readOnly(
  Tool.make("search_ratings", {
    description:
      "Search every rated entity type (protocols, chains, tokens, oracles, vaults, organisations and bridges) " +
      "by name or slug, case-insensitively, or one type with entity_type. Answers each match with its type, " +
      `slug, letter grade and composite score (up to ${SearchPerType} per type, ${SearchMerged} in all); use ` +
      "get_rating for one match's details.",
    parameters: Schema.Struct({
      query: Text("Part of the name or slug to look for, such as aave or chainlink", 100),
      entity_type: Schema.optionalKey(EntityTypeParam),
      limit: Schema.optionalKey(
        limitOf(
          MaxSearchItems,
          `How many matches to answer with, 1 to ${MaxSearchItems}, per type and in all (default ` +
            `${SearchPerType} per type, ${SearchMerged} in all)`
        )
      )
    })
  }).annotate(Tool.Title, "Search ratings")
)

export const GetRating = readOnly(
  Tool.make("get_rating", {
    description:
      "The current rating of one entity, by its slug or UUID id (identifier) and type: its letter grade and " +
      "composite score (0-100, after dependency drag), the intrinsic grade and composite before drag, the " +
      "dependency that drags it most, whether it depends on unrated entities, and when it was rated. Without " +
      "entity_type the slug is looked up in every type; when several types have it, the answer names them.",
    parameters: Schema.Struct({
      entity_type: Schema.optionalKey(EntityTypeParam),
      identifier: Identifier
    })
  }).annotate(Tool.Title, "Get a rating")
)

export const GetRatingBreakdown = readOnly(
  Tool.make("get_rating_breakdown", {
    description:
      "The per-domain breakdown of one entity's current rating (security, governance, ...: each a score " +
      "from 0 to 1), with its grade and composites. Needs a Pro or Enterprise API key; without one the answer " +
      "says which tier is needed and how to get a key.",
    parameters: Schema.Struct({
      entity_type: EntityTypeParam,
      slug: Text(
        "The entity's slug, such as aave-v4 (a UUID id is accepted too). Also accepted under the names " +
          "`identifier` and `id` (the same value under two names is taken; different values are refused)."
      )
    })
  }).annotate(Tool.Title, "Get a rating's domain breakdown")
)

export const GetRecentIncidents = readOnly(
  Tool.make("get_recent_incidents", {
    description:
      "Recent hack incidents at DeFi protocols, newest first: protocol, status (rumored, corroborated or " +
      "confirmed), exploit class, estimated loss, chain, confidence and sources. Incidents never change a " +
      "rating.",
    parameters: Schema.Struct({
      since: Schema.optionalKey(
        Text(
          "Only incidents detected after this ISO 8601 date-time with a zone, such as 2026-05-01T00:00:00Z",
          64
        )
      ),
      slug: Schema.optionalKey(
        Text("Only incidents at the rated protocol of this slug, such as aave-v4", 200)
      ),
      min_status: Schema.optionalKey(
        Schema.Literals(IncidentTiers).annotate({
          description: "Lowest status listed: rumored, corroborated or confirmed (default confirmed)"
        })
      ),
      limit: Schema.optionalKey(
        limitOf(MaxIncidents, `How many incidents, 1 to ${MaxIncidents} (default ${DefaultIncidents})`)
      )
    })
  }).annotate(Tool.Title, "Recent incidents")
)

export const GetMethodology = readOnly(
  Tool.make("get_methodology", {
    description:
      "The rating methodology: its name and version, the grade scale (each letter grade's minimum composite), " +
      "how composites are rounded, the domains and question counts of each entity type, and the attribution " +
      "free and anonymous use must show.",
    parameters: Tool.EmptyParams
  }).annotate(Tool.Title, "Methodology")
)

export const QuantumReadiness = readOnly(
  Tool.make("quantum_readiness", {
    description:
      "Post-quantum readiness of blockchains from a third-party source (LayerQu): the league table of every " +
      "chain, or one chain by its slug. Per chain: the Quantum Readiness Index (QRI, 0-100), band (1-7) and " +
      "migration stage (0-5); a chain the source has not assessed reads 'not assessed'. Shown beside ratings, " +
      "it never feeds grades.",
    parameters: Schema.Struct({
      chain: Schema.optionalKey(Text("A chain slug, such as ethereum; leave out for the league table", 100))
    })
  }).annotate(Tool.Title, "Quantum readiness")
)

export const RequestCoverage = Tool.make("request_coverage", {
  description:
    "Ask the operators to rate an entity the service does not cover yet: its name and type, a contact e-mail " +
    "address for the answer, and an optional note. Answers the receipt (a reference id, status open, when it " +
    "was received); asking again for the same entity from the same address while the request is open adds " +
    "to that request rather than opening another. Each client address may send only a few requests an hour.",
  parameters: Schema.Struct({
    entity_name: ContactEntityName.check(isWellFormed).annotate({
      description: "The name of the entity to rate, such as Aave V4"
    }),
    entity_type: EntityTypeParam,
    contact_email: ContactEmail.check(isWellFormed).annotate({
      description: "Where the operators may answer, such as name@example.com"
    }),
    note: Schema.optionalKey(
      ContactMessage.check(isWellFormed).annotate({ description: "A note for the operators (optional)" })
    )
  })
})
  .annotate(Tool.Title, "Request coverage")
  .annotate(Tool.Readonly, false)
  .annotate(Tool.Destructive, false)
  .annotate(Tool.Idempotent, true)
  .annotate(Tool.OpenWorld, false)

/** Every tool of the server, in the order tools/list gives them. */
export const RatingsToolkit = Toolkit.make(
  ListRatings,
  SearchRatings,
  GetRating,
  GetRatingBreakdown,
  GetRecentIncidents,
  GetMethodology,
  QuantumReadiness,
  RequestCoverage
)

export type RatingsToolName = keyof typeof RatingsToolkit.tools
