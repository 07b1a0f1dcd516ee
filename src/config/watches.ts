// Watches (docs/watches.md): the budgets of provider requests spent following watched flights that
// no polled board shows ("Followed through the providers").
import { capability, integer } from './setting.js';

export interface FollowConfig {
  /** Provider requests per hour for following, all accounts together. */
  requestsPerHour: number;
  /** Provider requests per hour for following one account's watches. */
  accountRequestsPerHour: number;
}

export const watches = capability({
  title: 'Watches (docs/watches.md)',
  settings: {
    FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR: integer({
      default: '600',
      min: 1,
      max: 1_000_000,
      unit: 'requests an hour',
      doc: 'provider requests an hour spent following watched flights no polled board shows, all accounts together ([docs/watches.md](docs/watches.md#followed-through-the-providers))',
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
      requestsPerHour: v.FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR,
      accountRequestsPerHour: v.FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR,
    } satisfies FollowConfig,
  }),
});
