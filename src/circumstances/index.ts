// Why a disrupted flight was disrupted: the evidence (weather reports, the aircraft's earlier flights,
// the airport's boards) and the finding the verdict gives as `data.circumstances` (docs/flight-lookup.md, "Circumstances").
export { CircumstancesService, type CircumstancesDeps } from './service.js';
export type { Outcome } from './shapes.js';
export {
  ASSESSMENTS,
  CAUSES,
  SHORT_NOTICE,
  type BoardHistory,
  type BoardSighting,
  type DayRead,
  type PastBoards,
  type PastMovement,
  type Circumstances,
  type CauseKind,
  type ExtraordinaryAssessment,
  type HourTally,
  type LegRef,
} from './shapes.js';
export { CircumstancesSchema } from './schema.js';
export { amountAtRisk, withRisk, type RiskedAssessment } from './risk.js';
