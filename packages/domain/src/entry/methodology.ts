/**
 * `@ratings/domain/methodology`: the published methodology's data: its name and
 * version, the domain weights of each entity type, the extra domains of
 * stablecoins and LST/LRTs, and the bridge rubric (domains per category and
 * the 62 questions in canonical order).
 */
export {
  type BridgeCategory,
  BridgeCategories,
  BridgeCategoryDomains,
  BridgeCategoryDomainWeight,
  type BridgeQuestion,
  BridgeQuestionCatalogue,
  BridgeQuestionCount,
  bridgeDomainWeights,
  isBridgeCategory
} from "../scoring/BridgeRubric.ts"
export {
  BaseDomainWeights,
  domainsOfType,
  type ExtraDomain,
  ExtraDomains,
  extraDomainFor,
  MethodologyName,
  MethodologyVersion,
  typeDomainWeights
} from "../scoring/Methodology.ts"
