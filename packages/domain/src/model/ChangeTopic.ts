/**
 * What a committed change names, for the caches that serve reads without
 * reading the data (docs/adr/0007-projection-cache.md): an entity type (its
 * entities, their scorecards and rubric) or one of the feeds stored beside
 * them, which change on their own writes (an incident ingested, a quantum
 * snapshot saved or a refresh outcome recorded). Each topic has its own
 * version counter, so a write of one never evicts the reads of another.
 */
import { Schema } from "effect"
import { EntityType, EntityTypes } from "./EntityType.ts"

export const FeedTopics = ["incident", "quantum"] as const
export type FeedTopic = (typeof FeedTopics)[number]

export const ChangeTopics = [...EntityTypes, ...FeedTopics] as const
export type ChangeTopic = (typeof ChangeTopics)[number]
export const ChangeTopic = Schema.Union([EntityType, Schema.Literals(FeedTopics)])
