// Watches (docs/watches.md): the budgets of provider requests spent following watched flights that
// no polled board shows ("Followed through the providers").
import { capability, integer } from './setting.js';

export interface FollowConfig {
  /** How often the job looks for followed flights due a question. */
  intervalMs: number;
  /** Provider requests per hour for following, all accounts together. */
  requestsPerHour: number;
  /** Provider requests per hour for following one account's watches. */
  accountRequestsPerHour: number;
}

export const watches = capability({
  title: 'Watches (docs/watches.md)',
  settings: {
    FLIGHTSTATUS_FOLLOW_INTERVAL_SECONDS: integer({
      default: '300',
      min: 60,
      max: 3600,
      unit: 'seconds',
      doc: 'how often the `watch-follow` job looks for watched flights due a question to the providers ([docs/watches.md](docs/watches.md#followed-through-the-providers))',
      comment:
        "The watch-follow job runs every N seconds (60 to 3600): a question its flight's phase calls for is " +
        'asked at the first run after it falls due.',
    }),
    FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR: integer({
      default: '600',
      min: 1,
      max: 1_000_000,
      unit: 'requests an hour',
      doc: 'provider requests an hour spent following watched flights no polled board shows (or shows only leaving, for an airport no board read shows), all accounts together ([docs/watches.md](docs/watches.md#followed-through-the-providers))',
      comment:
        'Provider requests an hour spent following watched flights that no polled board shows (1 to 1000000), ' +
        'all accounts together, and for one account (at most the first). A flight past a budget is asked in the ' +
        'next hour; these requests are never charged credits (a watch paid its one).',
    }),
    FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR: integer({
      default: '120',
      min: 1,
      max: 1_000_000,
      unit: 'requests an hour',
      doc: "provider requests an hour spent following one account's watched flights; at most FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR",
    }),
  },
  check: (reading) => {
    const { FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR: all, FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR: one } =
      reading.values;
    if (all !== undefined && one !== undefined && one > all)
      reading.problem(
        `FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR (${one}) must be at most FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR (${all}): one account cannot spend more than all of them`,
      );
  },
  build: (v) => ({
    follow: {
      intervalMs: v.FLIGHTSTATUS_FOLLOW_INTERVAL_SECONDS * 1000,
      requestsPerHour: v.FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR,
      accountRequestsPerHour: v.FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR,
    } satisfies FollowConfig,
  }),
});
