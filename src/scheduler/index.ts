// Periodic jobs on the service clock, and which process runs each slot of the jobs that must run once.
export { Scheduler, type Job, type JobRun, type JobState } from './scheduler.js';
export { createRunClaims, type RunClaims } from './claims.js';
export { pruneJob, schedulerCapability } from './prune.js';
