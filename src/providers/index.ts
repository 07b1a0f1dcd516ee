export type * from './types.js';
export { withDeadline, pause } from './call.js';
export { CALL_KINDS } from './types.js';
export { AeroDataBoxProvider, AERODATABOX_URL } from './aerodatabox.js';
export { ProviderStats, type StatsSnapshot } from './stats.js';
