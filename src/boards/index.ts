// Airports' departure and arrival boards: watched by the poll, their events published to the webhook
// fan-out, their final rows kept, and airport-days read after the fact for airports nobody watched
// (docs/boards.md).
export {
  observe,
  disruptionOf,
  delayOf,
  EVENT_TYPES,
  WATCH_ONLY_EVENT_TYPES,
  FOLLOWED_BOARD,
  type Watch,
  type Disruption,
  type EventType,
  type EngineEvent,
  type Prediction,
} from './engine.js';
export { predict, type PredictionContext } from './predict.js';
export { Fleet } from './chain.js';
export { BoardPoller, POLL_INTERVAL_MS, RETIRE_AFTER_MS, type PassReport } from './poller.js';
export { WINDOW_BEFORE_MS, WINDOW_AFTER_MS, boardFlightKey } from './store.js';
export type { BoardStore, BoardSubscribers, DepartedFlight, WatchedFlight } from './store.js';
export { FollowedFlights, WATCHED_EVENT_TYPES, WATCH_REACH_MS, watchLinks } from './followed.js';
export { ObservedFlightStore } from './observed.js';
export { boardEventData } from './event-data.js';
export { AirportDays, DAY_SETTLES, type AirportDaysDeps } from './days.js';
export { createBoardStore } from './dialect.js';
export { boardsCapability } from './capability.js';
