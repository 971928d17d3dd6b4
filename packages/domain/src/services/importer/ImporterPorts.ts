/** What the Importer works with: its stores, the use cases it replays through, and the tier projection. */
import type { TierProjection } from "../../access/Projection.ts"
import type { EntityRepository } from "../../ports/EntityRepository.ts"
import type { QuantumSnapshotStore } from "../../ports/QuantumSnapshotStore.ts"
import type { RubricRepository } from "../../ports/RubricRepository.ts"
import type { ScorecardRepository } from "../../ports/ScorecardRepository.ts"
import type { Transaction } from "../../ports/Transaction.ts"
import type { IncidentService } from "../IncidentService.ts"
import type { Publisher } from "../Publisher.ts"

export interface ImporterPorts {
  readonly entities: EntityRepository["Service"]
  readonly rubric: RubricRepository["Service"]
  readonly scorecards: ScorecardRepository["Service"]
  readonly quantumStore: QuantumSnapshotStore["Service"]
  readonly tx: Transaction["Service"]
  readonly publisher: Publisher["Service"]
  readonly incidents: IncidentService["Service"]
  readonly projection: TierProjection
}
