// Leased work over both databases: one claim, one settle, one back-off, one prune, one count, for
// every capability whose rows several processes share (leased.ts).
export { backoff, LeasedRows, type ChosenClaim, type ClaimOptions, type Lease, type LeaseShape } from './leased.js';
