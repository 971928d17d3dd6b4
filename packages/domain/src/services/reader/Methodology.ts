/** The methodology read of RatingsReader: the questions and domains of every type, and the grade scale. */
import { Effect } from "effect"
import { EntityTypes } from "../../model/EntityType.ts"
import { type Branding, DefaultBranding } from "../../model/ServiceInfo.ts"
import { BridgeCategoryDomains, BridgeQuestionCatalogue } from "../../scoring/BridgeRubric.ts"
import { GradeLadder, GradeRounding } from "../../scoring/GradeLadder.ts"
import { domainsOfType, MethodologyVersion } from "../../scoring/Methodology.ts"
import type { ReaderPorts } from "./ReadAccess.ts"

/**
 * The methodology: how many questions each type's catalogue holds (one read
 * of the counts, not of the catalogues; bridges without a stored catalogue
 * use the built-in one, as `questionsOf` does), the domains and the scale,
 * published under the operator's branding (framework name, attribution and
 * methodology URL).
 */
export const methodology = (ports: ReaderPorts, branding: Branding = DefaultBranding) =>
  Effect.gen(function* () {
    const counts = yield* ports.rubric.questionCounts()
    const entity_types = EntityTypes.map((type) => {
      const questions =
        type === "bridge" && counts.bridge === 0 ? BridgeQuestionCatalogue.length : counts[type]
      const domains =
        type === "bridge" ? domainsOfType(type, Object.values(BridgeCategoryDomains)) : domainsOfType(type)
      return { type, questions, domains, domain_count: domains.length }
    })
    return {
      name: branding.frameworkName,
      version: MethodologyVersion,
      total_questions: entity_types.reduce((n, t) => n + t.questions, 0),
      entity_types,
      grade_scale: GradeLadder.map((b) => ({
        grade: b.grade,
        min_score: b.min_score,
        description: b.description
      })),
      grade_rounding: GradeRounding,
      attribution: branding.attribution,
      methodology_url: branding.methodologyUrl
    }
  })
