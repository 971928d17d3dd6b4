/**
 * The shape of the hand-written rubric tables: per entity type, its domains in
 * canonical order, and per domain its questions as rows of weight, text and the
 * three anchored rubric levels (0, 2 and 4 of a maximum of 4). Chain rows may
 * name the minimum-viable-chain gate they decide.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"

/** weight, question text, level 0, level 2, level 4, and (chains only) the gate it decides. */
export type QuestionRow = readonly [
  weight: number,
  text: string,
  none: string,
  partial: string,
  full: string,
  gate?: string
]

export interface DomainRows {
  readonly domain: string
  /** Short code used in question ids: PROT-SEC-01. */
  readonly code: string
  readonly rows: ReadonlyArray<QuestionRow>
}

export interface TypeRubric {
  readonly entity_type: EntityType
  readonly prefix: string
  readonly domains: ReadonlyArray<DomainRows>
}
