/**
 * `@ratings/domain/methodology`: the published methodology's data: its name and
 * version, the domain weights of each entity type, the extra domains of
 * stablecoins and LST/LRTs, and the bridge rubric (domains per category and
 * the 62 questions in canonical order). The functions take any input: a type
 * or category list that is not one is an `InvalidInput` naming it, never a throw.
 */
import { Result } from "effect"
import type { EntityType } from "../model/EntityTypeNames.ts"
import { bridgeDomainWeights as bridgeWeights } from "../scoring/BridgeRubric.ts"
import type { DomainWeightMap } from "../scoring/Composite.ts"
import { checkEntityType, checkStrings } from "../scoring/InputGuard.ts"
import {
  domainsOfType as domainsOf,
  type ExtraDomain,
  extraDomainFor as extraDomain,
  typeDomainWeights as typeWeights
} from "../scoring/Methodology.ts"
import type { InvalidInput } from "../scoring/ScoringError.ts"

export {
  type BridgeCategory,
  BridgeCategories,
  BridgeCategoryDomains,
  BridgeCategoryDomainWeight,
  type BridgeQuestion,
  BridgeQuestionCatalogue,
  BridgeQuestionCount,
  isBridgeCategory
} from "../scoring/BridgeRubric.ts"
export {
  BaseDomainWeights,
  type ExtraDomain,
  ExtraDomains,
  MethodologyName,
  MethodologyVersion
} from "../scoring/Methodology.ts"
export { InvalidInput } from "../scoring/ScoringError.ts"

type Checked<A> = Result.Result<A, InvalidInput>

/** A type and a list of strings, checked, handed to `f`. */
const typed = <A>(
  type: unknown,
  list: unknown,
  f: (t: EntityType, cs: ReadonlyArray<string>) => A,
  listField = "categories"
) => {
  const t = checkEntityType("entity_type", type)
  if (Result.isFailure(t)) return Result.fail(t.failure)
  return Result.map(checkStrings(listField, list), (cs) => f(t.success, cs))
}

/** The active domains of a bridge with these categories, renormalised to 100. Unknown categories add nothing. */
export const bridgeDomainWeights = (categories: ReadonlyArray<string>): Checked<DomainWeightMap> =>
  Result.map(checkStrings("categories", categories), bridgeWeights)

/** The default domain weights of a non-bridge entity of this type and these categories; they sum to 100. */
export const typeDomainWeights = (
  type: EntityType,
  categories: ReadonlyArray<string>
): Checked<DomainWeightMap> => typed(type, categories, typeWeights)

/** The extra domain (stablecoins, LST/LRT vaults) an entity of this type and these categories carries, if any. */
export const extraDomainFor = (
  type: EntityType,
  categories: ReadonlyArray<string>
): Checked<ExtraDomain | undefined> => typed(type, categories, extraDomain)

/** Every domain a type can be scored on, in canonical order, then the given category domains. */
export const domainsOfType = (
  type: EntityType,
  extraCategoryDomains: ReadonlyArray<string> = []
): Checked<Array<string>> => typed(type, extraCategoryDomains, domainsOf, "extraCategoryDomains")
