export type * from './types.js';
export { withDeadline, pause } from './call.js';
export { CALL_KINDS } from './types.js';
