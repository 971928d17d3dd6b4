/** The methodology read of RatingsReader: the questions and domains of every type, and the grade scale. */
import { Effect } from "effect"
import { EntityTypes } from "../../model/EntityType.ts"
import { Attribution, MethodologyUrl } from "../../model/ServiceInfo.ts"
import { BridgeCategoryDomains } from "../../scoring/BridgeRubric.ts"
import { GradeLadder, GradeRounding } from "../../scoring/GradeLadder.ts"
import { domainsOfType, MethodologyName, MethodologyVersion } from "../../scoring/Methodology.ts"
import { questionsOf, type ReaderPorts } from "./ReadAccess.ts"

export const methodology = (ports: ReaderPorts) =>
  Effect.gen(function* () {
    const entity_types = []
    for (const type of EntityTypes) {
      const qs = yield* questionsOf(ports, type)
      const domains =
        type === "bridge" ? domainsOfType(type, Object.values(BridgeCategoryDomains)) : domainsOfType(type)
      entity_types.push({ type, questions: qs.length, domains, domain_count: domains.length })
    }
    return {
      name: MethodologyName,
      version: MethodologyVersion,
      total_questions: entity_types.reduce((n, t) => n + t.questions, 0),
      entity_types,
      grade_scale: GradeLadder.map((b) => ({
        grade: b.grade,
        min_score: b.min_score,
        description: b.description
      })),
      grade_rounding: GradeRounding,
      attribution: Attribution,
      methodology_url: MethodologyUrl
    }
  })
