// The service clock: the system's, or a manual one that moves only when told (tests, demos).
import { parseInstant } from '../clock.js';
import { capability, oneOf, text } from './setting.js';

export const clock = capability({
  title: 'The clock',
  settings: {
    FLIGHTSTATUS_CLOCK: oneOf(['system', 'manual'], {
      default: 'system',
      listing: 'or',
      lowerCase: true,
      doc: '`manual`: time moves only when told (tests, demos)',
      comment:
        'The service clock: system, or manual (time moves only through POST /api/admin/v1/clock or ' +
        '`flightstatus clock advance 2h`; every periodic job that falls due runs in order). Manual starts at ' +
        'FLIGHTSTATUS_CLOCK_START (ISO 8601 with its zone, e.g. 2026-03-01T06:00:00Z), or at the system time ' +
        'when that is empty. Tests and demos only.',
    }),
    // Read in `check`: what it must be depends on the clock (and a bad clock says enough alone).
    FLIGHTSTATUS_CLOCK_START: text({
      default: '',
      doc: 'where a manual clock starts: ISO 8601 with its zone (`2026-03-01T06:00:00Z`, `…+02:00`) or a date (its UTC midnight); empty: the current time',
    }),
  },
  check({ values, text: given, problem }) {
    const start = given.FLIGHTSTATUS_CLOCK_START;
    if (start === '') return;
    if (values.FLIGHTSTATUS_CLOCK === 'manual' && parseInstant(start) === null) {
      problem(
        `FLIGHTSTATUS_CLOCK_START must be an ISO 8601 time with its zone, such as 2026-03-01T06:00:00Z (got "${start}")`,
      );
    } else if (values.FLIGHTSTATUS_CLOCK === 'system') {
      problem('FLIGHTSTATUS_CLOCK_START only applies to the manual clock; also set FLIGHTSTATUS_CLOCK=manual');
    }
  },
  build: (v): { clock: { kind: 'system' } | { kind: 'manual'; start: number | null } } => ({
    clock:
      v.FLIGHTSTATUS_CLOCK === 'manual'
        ? { kind: 'manual', start: v.FLIGHTSTATUS_CLOCK_START === '' ? null : parseInstant(v.FLIGHTSTATUS_CLOCK_START) }
        : { kind: 'system' },
  }),
});
