export { observe, disruptionOf, delayOf, type Watch, type Disruption, type EventType } from './engine.js';
export { BoardPoller, POLL_INTERVAL_MS, WINDOW_BEFORE_MS, WINDOW_AFTER_MS, RETIRE_AFTER_MS, type PassReport } from './poller.js';
export { createBoardStore, type BoardStore, type BoardSubscribers } from './store.js';
