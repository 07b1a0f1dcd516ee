// The board poll: how often the boards of watched airports are read (docs/boards.md).
import { capability, integer } from './setting.js';

export const boards = capability({
  title: 'The board poll (docs/boards.md)',
  settings: {
    FLIGHTSTATUS_POLL_INTERVAL_MINUTES: integer({
      default: '30',
      min: 1,
      max: 24 * 60,
      unit: 'minutes',
      doc: 'how often the boards of watched airports are read ([docs/boards.md](docs/boards.md))',
      comment:
        'How often the boards of the airports enabled webhook endpoints select are read (minutes, 1 to ' +
        '1440; spec: 30). On the manual clock the poll runs whenever an advance passes it.',
    }),
    FLIGHTSTATUS_OBSERVED_RETENTION_DAYS: integer({
      default: '30',
      min: 1,
      max: 3650,
      unit: 'days',
      doc: 'how long the flights the board poll saw are kept, with the hours it kept whole, for batches and the circumstances to answer from ([docs/boards.md](docs/boards.md#the-hours-kept-whole))',
      comment:
        'How long the flights the board poll saw are kept (1 to 3650 days), with the hours it kept whole: a ' +
        'batch row about one of them is answered from them without asking a provider, and the circumstances ' +
        'follow an aircraft through them. About 400 rows a day per watched airport.',
    }),
  },
  build: (v) => ({
    pollIntervalMs: v.FLIGHTSTATUS_POLL_INTERVAL_MINUTES * 60_000,
    observedRetentionMs: v.FLIGHTSTATUS_OBSERVED_RETENTION_DAYS * 86_400_000,
  }),
});
