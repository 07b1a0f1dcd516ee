// Every recorded aviationstack answer of test/fixtures/real/aviationstack (docs/providers.md), served verbatim
// by the local fixture server and read by the real adapter over HTTP: per file, what its SOURCES.md
// says the adapter must conclude. Rows no lookup reaches (no flight number) are also read directly
// with `toFlight`, for what the adapter would conclude if one did.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { ManualClock } from '../clock.js';
import {
  AVIATIONSTACK_KEY,
  recordedAnswer,
  startAvsFixture,
  type AvsFixture,
} from '../../test/helpers/aviationstack-fixture.js';
import { AviationstackProvider } from './aviationstack.js';
import type { AirlineRef, FlightPhase, ProviderFlight } from './types.js';

const FOLDER = new URL('../../test/fixtures/real/aviationstack/', import.meta.url);
/** After every recorded flight. */
const NOW = Date.parse('2025-08-01T00:00:00Z');

/** A UTC minute, `2025-07-15T23:05`. */
type Utc = string;
interface EndExpected {
  scheduled: Utc | null;
  /** Absent: not checked. */
  estimated?: Utc | null;
  actual: Utc | null;
  /** Required when `actual` is set. */
  actualKind?: 'block' | 'runway';
  runwayAt?: Utc | null;
}
interface Expected {
  flightIata: string | null;
  flightIcao?: string | null;
  airline?: AirlineRef;
  operating: { flightIata: string | null; flightIcao: string | null; airline: AirlineRef } | null;
  codeshares?: string[];
  operation?: ProviderFlight['operation'];
  phase: FlightPhase;
  cancelled?: boolean;
  diverted?: boolean;
  settled: boolean;
  departure: EndExpected;
  arrival: EndExpected;
  /** A distinctive part of the one doubt expected, or of each when several; absent: no doubt. */
  doubt?: RegExp | RegExp[];
  aircraftIcao24?: string | null;
}
interface Lookup {
  designator: string;
  date: string;
  origin?: string;
  outcome: 'hit' | 'incomplete' | 'miss';
  /** Every `/flights` request, as [number asked, local date], in order (sorted when `unordered`). */
  requests: [string, string][];
  unordered?: boolean;
  leg?: Expected;
}
interface Case {
  lookups: Lookup[];
  /** What the adapter makes of the file's row when read directly (rows no lookup reaches). */
  row?: Expected;
}

const ms = (utc: Utc | null | undefined) => (utc == null ? null : Date.parse(`${utc}:00Z`));
const airline = (name: string | null, iata: string | null, icao: string | null): AirlineRef => ({ name, iata, icao });

const CASES: Record<string, Case> = {
  'tr428-sin-pen-landed-arrived-early.json': {
    lookups: [
      {
        designator: 'TR428',
        date: '2020-02-04',
        origin: 'SIN',
        outcome: 'hit',
        requests: [['TR428', '2020-02-04']],
        leg: {
          flightIata: 'TR428',
          flightIcao: 'TGW428',
          airline: airline('Scoot', 'TR', 'TGW'),
          operating: null,
          phase: 'landed',
          settled: true,
          aircraftIcao24: '76D035',
          // 13 min late off the stand, 17 min early on it; the estimates equal to the schedule are dropped.
          departure: {
            scheduled: '2020-02-04T12:25',
            estimated: null,
            actual: '2020-02-04T12:38',
            actualKind: 'runway',
            runwayAt: '2020-02-04T12:38',
          },
          arrival: {
            scheduled: '2020-02-04T13:50',
            estimated: null,
            actual: '2020-02-04T13:33',
            actualKind: 'runway',
            runwayAt: '2020-02-04T13:33',
          },
        },
      },
    ],
  },
  'ua849-gum-hnd-active-airborne.json': {
    lookups: [
      {
        designator: 'UA849',
        date: '2024-12-17',
        origin: 'GUM',
        outcome: 'incomplete',
        requests: [['UA849', '2024-12-17']],
        leg: {
          flightIata: 'UA849',
          airline: airline('United Airlines', 'UA', 'UAL'),
          operating: null,
          phase: 'departed',
          settled: false,
          aircraftIcao24: 'AA73B9',
          // 13 min late by the times (the delay field's 14 is not used, and a minute is no contradiction).
          departure: {
            scheduled: '2024-12-17T09:05',
            estimated: null,
            actual: '2024-12-17T09:18',
            actualKind: 'runway',
            runwayAt: '2024-12-17T09:18',
          },
          arrival: { scheduled: '2024-12-17T13:00', estimated: '2024-12-17T13:00', actual: null, runwayAt: null },
        },
      },
    ],
  },
  'snn-departures-tk6567-diverted-still-airborne.json': {
    lookups: [
      {
        // "diverted" while its live position, six hours after take-off, is at cruise over New Hampshire:
        // no diversion airport, no landing. A diversion, said, and not settled.
        designator: 'TK6567',
        date: '2021-02-07',
        origin: 'SNN',
        outcome: 'incomplete',
        requests: [['TK6567', '2021-02-07']],
        leg: {
          flightIata: 'TK6567',
          airline: airline('Turkish Airlines', 'TK', 'THY'),
          operating: null,
          phase: 'diverted',
          diverted: true,
          settled: false,
          aircraftIcao24: '4B846D',
          departure: {
            scheduled: '2021-02-07T13:15',
            estimated: null,
            actual: '2021-02-07T19:55',
            actualKind: 'runway',
            runwayAt: '2021-02-07T19:55',
          },
          arrival: { scheduled: '2021-02-07T20:55', actual: null },
          doubt: /status says diverted while the live position at 02:14 UTC shows the aircraft still in the air/,
        },
      },
      {
        // "scheduled" while it took off at 19:41 UTC and is airborne west of Ireland.
        designator: 'TK6551',
        date: '2021-02-07',
        origin: 'SNN',
        outcome: 'incomplete',
        requests: [['TK6551', '2021-02-07']],
        leg: {
          flightIata: 'TK6551',
          operating: null,
          phase: 'departed',
          settled: false,
          departure: {
            scheduled: '2021-02-07T16:00',
            actual: '2021-02-07T19:41',
            actualKind: 'runway',
            runwayAt: '2021-02-07T19:41',
          },
          arrival: { scheduled: '2021-02-08T00:15', actual: null },
          // and its arrival estimate copies the schedule while the delay field says 154 minutes.
          doubt: [
            /arrival estimate equals the schedule \(00:15 UTC\) while the delay field says 154 minutes late/,
            /status says scheduled while a departure at 19:41 UTC is given/,
          ],
        },
      },
      {
        // Both estimates copy the schedule while the departure is said 65 minutes late.
        designator: 'LX5180',
        date: '2021-02-08',
        origin: 'SNN',
        outcome: 'incomplete',
        requests: [['LX5180', '2021-02-08']],
        leg: {
          flightIata: 'LX5180',
          operating: null,
          phase: 'scheduled',
          settled: false,
          departure: { scheduled: '2021-02-08T12:15', estimated: null, actual: null },
          arrival: { scheduled: '2021-02-08T14:45', estimated: null, actual: null },
          doubt: /departure estimate equals the schedule \(12:15 UTC\) while the delay field says 65 minutes late/,
        },
      },
      {
        // "unknown", the schedule only, years after it: nothing is known.
        designator: 'TK6363',
        date: '2021-02-08',
        origin: 'SNN',
        outcome: 'incomplete',
        requests: [['TK6363', '2021-02-08']],
        leg: {
          flightIata: 'TK6363',
          operating: null,
          phase: 'unknown',
          settled: false,
          departure: { scheduled: '2021-02-08T07:05', actual: null },
          arrival: { scheduled: '2021-02-08T14:20', actual: null },
        },
      },
    ],
  },
  'ga9051-codeshare-of-ey78-active.json': {
    lookups: [
      {
        // The operating flight's row is asked for too (one more request); the recorded list has none, so the codeshare row's copy stands.
        designator: 'GA9051',
        date: '2024-12-17',
        outcome: 'incomplete',
        requests: [
          ['GA9051', '2024-12-17'],
          ['EY78', '2024-12-17'],
        ],
        leg: {
          flightIata: 'GA9051',
          flightIcao: 'GIA9051',
          airline: airline('Garuda Indonesia', 'GA', 'GIA'),
          operating: { flightIata: 'EY78', flightIcao: 'ETD78', airline: airline('etihad airways', 'EY', 'ETD') },
          phase: 'departed',
          settled: false,
          aircraftIcao24: null,
          departure: {
            scheduled: '2024-12-17T08:25',
            estimated: null,
            actual: '2024-12-17T08:41',
            actualKind: 'runway',
            runwayAt: '2024-12-17T08:41',
          },
          arrival: { scheduled: '2024-12-17T15:30', actual: null },
        },
      },
      {
        // Asked by the operating number: the codeshare row is the operating flight's copy.
        designator: 'EY78',
        date: '2024-12-17',
        origin: 'MAN',
        outcome: 'incomplete',
        requests: [['EY78', '2024-12-17']],
        leg: {
          flightIata: 'EY78',
          flightIcao: 'ETD78',
          airline: airline('etihad airways', 'EY', 'ETD'),
          operating: null,
          codeshares: ['GA9051'],
          phase: 'departed',
          settled: false,
          departure: { scheduled: '2024-12-17T08:25', actual: '2024-12-17T08:41', actualKind: 'runway' },
          arrival: { scheduled: '2024-12-17T15:30', actual: null },
        },
      },
    ],
  },
  'a12874-codeshare-of-vj874-airline-name-null.json': {
    lookups: [
      {
        designator: 'A12874',
        date: '2024-12-17',
        origin: 'DAD',
        outcome: 'incomplete',
        requests: [
          ['A12874', '2024-12-17'],
          ['VJ874', '2024-12-17'],
        ],
        leg: {
          // No airline name (not "null"); "A1" is no ICAO code.
          flightIata: 'A12874',
          airline: airline(null, 'A1', null),
          operating: { flightIata: 'VJ874', flightIcao: 'VJC874', airline: airline('vietjet air', 'VJ', 'VJC') },
          phase: 'departed',
          settled: false,
          departure: {
            scheduled: '2024-12-17T08:10',
            estimated: null,
            actual: '2024-12-17T08:24',
            actualKind: 'runway',
          },
          arrival: { scheduled: '2024-12-17T12:30', actual: null },
        },
      },
    ],
  },
  'mu3196-codeshare-departed-early-positive-delay-tz-null.json': {
    lookups: [
      {
        // No origin named: FYJ's side of Greenwich (east) is asked too, as local-dates.ts does.
        designator: 'MU3196',
        date: '2024-12-17',
        outcome: 'incomplete',
        unordered: true,
        requests: [
          ['MU3196', '2024-12-17'],
          ['MU3196', '2024-12-18'],
          ['EU2850', '2024-12-17'],
        ],
        leg: {
          flightIata: 'MU3196',
          airline: airline('China Eastern Airlines', 'MU', 'CES'),
          operating: { flightIata: 'EU2850', flightIcao: 'UEA2850', airline: airline('chengdu airlines', 'EU', 'UEA') },
          phase: 'departed',
          settled: false,
          // timezone null: FYJ's zone from the reference airports (Asia/Shanghai); off-block 16 min early, never "1 min late".
          departure: {
            scheduled: '2024-12-17T08:10',
            estimated: null,
            actual: '2024-12-17T07:54',
            actualKind: 'runway',
          },
          arrival: { scheduled: '2024-12-17T10:40', actual: null },
          doubt:
            /delay field says 1 minute late while the actual departure at 07:54 UTC is 16 minutes before the schedule \(08:10 UTC\)/,
        },
      },
    ],
  },
  'fr3337-rix-pfo-active-but-on-ground-at-destination.json': {
    lookups: [
      {
        designator: 'FR3337',
        date: '2024-12-17',
        origin: 'RIX',
        outcome: 'incomplete',
        requests: [['FR3337', '2024-12-17']],
        leg: {
          flightIata: 'FR3337',
          operating: null,
          phase: 'departed',
          settled: false,
          aircraftIcao24: '4CA856',
          // The live position is named, never used as a landing time.
          departure: { scheduled: '2024-12-17T08:20', actual: '2024-12-17T08:28', actualKind: 'runway' },
          arrival: { scheduled: '2024-12-17T12:20', actual: null, runwayAt: null },
          doubt: /live position at 12:01 UTC shows the aircraft on the ground/,
        },
      },
    ],
  },
  'ek5415-codeshare-of-qf415-scheduled.json': {
    lookups: [
      {
        // 07:30 in Sydney (UTC+11) is 20:30 UTC the day before: found in the next local date's file.
        designator: 'EK5415',
        date: '2024-03-24',
        outcome: 'incomplete',
        unordered: true,
        requests: [
          ['EK5415', '2024-03-23'],
          ['EK5415', '2024-03-24'],
          ['EK5415', '2024-03-25'],
          ['QF415', '2024-03-25'],
        ],
        leg: {
          flightIata: 'EK5415',
          airline: airline('Emirates', 'EK', 'UAE'),
          operating: { flightIata: 'QF415', flightIcao: 'QFA415', airline: airline('qantas', 'QF', 'QFA') },
          phase: 'scheduled',
          settled: false,
          departure: { scheduled: '2024-03-24T20:30', estimated: '2024-03-24T20:30', actual: null },
          arrival: { scheduled: '2024-03-24T22:05', actual: null },
        },
      },
    ],
  },
  'private-owner-3514-scheduled-delay-75-no-codes.json': {
    // No IATA number: no lookup matches it (the recorded list is served for any number asked).
    lookups: [
      {
        designator: '3514',
        date: '2024-03-24',
        outcome: 'miss',
        unordered: true,
        requests: [
          ['3514', '2024-03-23'],
          ['3514', '2024-03-24'],
          ['3514', '2024-03-25'],
        ],
      },
    ],
    row: {
      flightIata: null,
      flightIcao: null,
      airline: airline('Private owner', null, null),
      operation: 'private',
      operating: null,
      phase: 'scheduled',
      settled: false,
      departure: { scheduled: '2024-03-24T21:45', estimated: null, actual: null },
      arrival: { scheduled: '2024-03-24T23:00', actual: null },
      doubt: /departure estimate equals the schedule \(21:45 UTC\) while the delay field says 75 minutes late/,
    },
  },
  'mh132-akl-kul-scheduled-delay-55-estimate-is-schedule.json': {
    lookups: [
      {
        designator: 'MH132',
        date: '2023-01-10',
        origin: 'AKL',
        outcome: 'incomplete',
        requests: [
          ['MH132', '2023-01-10'],
          ['MH132', '2023-01-11'],
        ],
        leg: {
          flightIata: 'MH132',
          operating: null,
          phase: 'scheduled',
          settled: false,
          // No expected time: the estimate (= schedule) and the delay field (55) contradict each other.
          departure: { scheduled: '2023-01-10T12:10', estimated: null, actual: null },
          // Its estimate equals the schedule too: a copy, while the departure is said 55 minutes late.
          arrival: { scheduled: '2023-01-10T23:20', estimated: null, actual: null },
          doubt: /departure estimate equals the schedule \(12:10 UTC\) while the delay field says 55 minutes late/,
        },
      },
    ],
  },
  'empty-airline-no-number-per-gbw-active-without-actuals.json': {
    // The row is not ZZ123's (no number at all), so the next local date on PER's side is asked too.
    lookups: [
      {
        designator: 'ZZ123',
        date: '2024-09-19',
        origin: 'PER',
        outcome: 'miss',
        requests: [
          ['ZZ123', '2024-09-19'],
          ['ZZ123', '2024-09-20'],
        ],
      },
    ],
    row: {
      flightIata: null,
      flightIcao: null,
      airline: airline(null, null, null),
      operating: null,
      // `active` without a departure time is not a departure; GBW has no zone anywhere: its times stay null.
      phase: 'unknown',
      settled: false,
      departure: { scheduled: '2024-09-19T01:30', actual: null },
      arrival: { scheduled: null, estimated: null, actual: null },
      doubt: /status says active but no departure time is given/,
    },
  },
  'id2102-kul-pen-active-delay-9-times-say-8.json': {
    lookups: [
      {
        designator: 'ID2102',
        date: '2024-09-19',
        origin: 'KUL',
        outcome: 'incomplete',
        requests: [['ID2102', '2024-09-19']],
        leg: {
          flightIata: 'ID2102',
          airline: airline('Batik Air', 'ID', 'BTK'),
          operating: null,
          phase: 'departed',
          settled: false,
          departure: {
            scheduled: '2024-09-19T00:20',
            estimated: null,
            actual: '2024-09-19T00:28',
            actualKind: 'runway',
            runwayAt: '2024-09-19T00:28',
          },
          arrival: { scheduled: '2024-09-19T01:20', actual: null },
        },
      },
    ],
  },
  'hmb-kta-lea-landed-scheduled-a-day-after-its-actual.json': {
    // "HMB" is an airline code, no flight number: a miss without a request.
    lookups: [{ designator: 'HMB', date: '2025-07-16', outcome: 'miss', requests: [] }],
    row: {
      flightIata: null,
      flightIcao: 'HMB',
      airline: airline('CHC Helicopter', null, 'HMB'),
      operating: null,
      phase: 'landed',
      settled: false,
      departure: { scheduled: '2025-07-16T23:15', actual: '2025-07-15T23:14', actualKind: 'runway' },
      arrival: {
        scheduled: '2025-07-16T00:25',
        estimated: '2025-07-16T00:31',
        actual: '2025-07-16T00:30',
        actualKind: 'runway',
      },
      doubt:
        /departure is scheduled at 23:15 UTC on 2025-07-16, not before the scheduled arrival at 00:25 UTC on 2025-07-16/,
    },
  },
  'qf3634-codeshare-of-cz3723-landed-early-utc-date-before-flight-date.json': {
    lookups: [
      {
        designator: 'QF3634',
        date: '2025-07-15',
        outcome: 'hit',
        unordered: true,
        requests: [
          ['CZ3723', '2025-07-16'],
          ['QF3634', '2025-07-14'],
          ['QF3634', '2025-07-15'],
          ['QF3634', '2025-07-16'],
        ],
        leg: {
          flightIata: 'QF3634',
          flightIcao: 'QFA3634',
          airline: airline('Qantas', 'QF', 'QFA'),
          operating: {
            flightIata: 'CZ3723',
            flightIcao: 'CSN3723',
            airline: airline('china southern airlines', 'CZ', 'CSN'),
          },
          phase: 'landed',
          settled: true,
          // On time: 15 min early at XMN (arrival.delay null is no delay, not "on time" by itself).
          departure: {
            scheduled: '2025-07-15T23:05',
            estimated: null,
            actual: '2025-07-15T23:16',
            actualKind: 'runway',
          },
          arrival: {
            scheduled: '2025-07-16T00:30',
            estimated: '2025-07-16T00:13',
            actual: '2025-07-16T00:15',
            actualKind: 'runway',
            runwayAt: '2025-07-16T00:15',
          },
        },
      },
      {
        // The operating number on the UTC date, through the neighbouring local date on CAN's side.
        designator: 'CZ3723',
        date: '2025-07-15',
        origin: 'CAN',
        outcome: 'hit',
        requests: [
          ['CZ3723', '2025-07-15'],
          ['CZ3723', '2025-07-16'],
        ],
        leg: {
          flightIata: 'CZ3723',
          flightIcao: 'CSN3723',
          airline: airline('china southern airlines', 'CZ', 'CSN'),
          operating: null,
          codeshares: ['QF3634'],
          phase: 'landed',
          settled: true,
          departure: { scheduled: '2025-07-15T23:05', actual: '2025-07-15T23:16', actualKind: 'runway' },
          arrival: { scheduled: '2025-07-16T00:30', actual: '2025-07-16T00:15', actualKind: 'runway' },
        },
      },
    ],
  },
  'zh8527-wux-xmn-landed-actual-departure-equals-schedule.json': {
    lookups: [
      {
        designator: 'ZH8527',
        date: '2025-07-15',
        origin: 'WUX',
        outcome: 'hit',
        requests: [
          ['ZH8527', '2025-07-15'],
          ['ZH8527', '2025-07-16'],
        ],
        leg: {
          flightIata: 'ZH8527',
          airline: airline('Shenzhen Airlines', 'ZH', 'CSZ'),
          operating: null,
          phase: 'landed',
          settled: true,
          // The departure as reported (equal to the schedule to the minute, a runway time); on time by the arrival, 12 min early.
          departure: {
            scheduled: '2025-07-15T22:40',
            estimated: '2025-07-15T22:40',
            actual: '2025-07-15T22:40',
            actualKind: 'runway',
            runwayAt: '2025-07-15T22:40',
          },
          arrival: {
            scheduled: '2025-07-16T00:20',
            estimated: '2025-07-16T00:06',
            actual: '2025-07-16T00:08',
            actualKind: 'runway',
            runwayAt: '2025-07-16T00:08',
          },
        },
      },
    ],
  },
};

function checkEnd(end: ProviderFlight['departure'], expected: EndExpected, label: string) {
  expect(end.scheduled, `${label} scheduled`).toBe(ms(expected.scheduled));
  if (expected.estimated !== undefined) expect(end.estimated, `${label} estimated`).toBe(ms(expected.estimated));
  if (end.estimated !== null) expect(end.estimatedKind, `${label} estimatedKind`).toBe('estimated');
  expect(end.actual, `${label} actual`).toBe(ms(expected.actual));
  expect(end.actualKind, `${label} actualKind`).toBe(expected.actual === null ? undefined : expected.actualKind);
  if (expected.runwayAt !== undefined) expect(end.runwayAt, `${label} runwayAt`).toBe(ms(expected.runwayAt));
}

/** Every string the flight holds is trimmed and free of control characters. */
function checkStrings(value: unknown, path: string) {
  if (typeof value === 'string') expect(value, path).toMatch(/^(?:\S(?:[^\p{Cc}]*\S)?)$/u);
  else if (Array.isArray(value)) value.forEach((v, i) => checkStrings(v, `${path}[${i}]`));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) checkStrings(v, `${path}.${k}`);
}

function check(flight: ProviderFlight | null, expected: Expected, label: string) {
  expect(flight, label).not.toBeNull();
  const f = flight!;
  expect(f.provider).toBe('aviationstack');
  expect(f.flightIata, `${label} flightIata`).toBe(expected.flightIata);
  if (expected.flightIcao !== undefined) expect(f.flightIcao, `${label} flightIcao`).toBe(expected.flightIcao);
  if (expected.airline) expect(f.airline, `${label} airline`).toEqual(expected.airline);
  expect(f.operating, `${label} operating`).toEqual(expected.operating);
  expect(f.codeshares, `${label} codeshares`).toEqual(expected.codeshares ?? []);
  expect(f.operation, `${label} operation`).toBe(expected.operation ?? 'passenger');
  expect(f.phase, `${label} phase`).toBe(expected.phase);
  expect(f.cancelled, `${label} cancelled`).toBe(expected.cancelled ?? false);
  expect(f.diverted, `${label} diverted`).toBe(expected.diverted ?? false);
  expect(f.settled, `${label} settled`).toBe(expected.settled);
  checkEnd(f.departure, expected.departure, `${label} departure`);
  checkEnd(f.arrival, expected.arrival, `${label} arrival`);
  if (expected.doubt) {
    const wanted = Array.isArray(expected.doubt) ? expected.doubt : [expected.doubt];
    expect(f.doubts, `${label} doubts`).toHaveLength(wanted.length);
    wanted.forEach((doubt, i) => {
      expect(f.doubts![i], `${label} doubt`).toMatch(doubt);
      // The contract's form: a capitalised sentence ending with a period.
      expect(f.doubts![i], `${label} doubt`).toMatch(/^[A-Z].*\.$/);
    });
  } else expect(f.doubts, `${label} doubts`).toBeUndefined();
  if (expected.aircraftIcao24 !== undefined)
    expect(f.aircraft?.icao24 ?? null, `${label} icao24`).toBe(expected.aircraftIcao24);
  checkStrings(f, label);
}

let fixture: AvsFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('aviationstack: recorded answers (test/fixtures/real/aviationstack)', () => {
  it('has a row for every corpus file', () => {
    const files = readdirSync(FOLDER)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(Object.keys(CASES).sort()).toEqual(files);
  });

  for (const [file, c] of Object.entries(CASES)) {
    it(file, async () => {
      const text = readFileSync(new URL(file, FOLDER), 'utf8');
      fixture = await startAvsFixture([]);
      fixture.recorded.push(recordedAnswer(text));
      const avs = new AviationstackProvider(
        { key: AVIATIONSTACK_KEY, url: fixture.url, requestsPerMinute: 1000 },
        new ManualClock(NOW),
        loadReferenceAirports(),
      );
      for (const lookup of c.lookups) {
        const label = `${lookup.designator} ${lookup.date}`;
        fixture.requests.splice(0);
        const answer = await avs.lookupFlight({
          designator: lookup.designator,
          flightDate: lookup.date,
          origin: lookup.origin ?? null,
        });
        expect(answer.outcome, label).toBe(lookup.outcome);
        const asked = fixture.requests.map((r) => [
          r.query.get('flight_iata') ?? r.query.get('flight_icao'),
          r.query.get('flight_date'),
        ]);
        const byText = (a: (string | null)[], b: (string | null)[]) => a.join().localeCompare(b.join());
        expect(lookup.unordered ? asked.sort(byText) : asked, `${label} requests`).toEqual(
          lookup.unordered ? [...lookup.requests].sort(byText) : lookup.requests,
        );
        if (lookup.leg) {
          const legs = (answer as { value: ProviderFlight[] }).value;
          expect(legs, label).toHaveLength(1);
          check(legs[0]!, lookup.leg, label);
        }
      }
      if (c.row) {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const row = (Array.isArray(parsed.data) ? parsed.data[0] : parsed) as Record<string, unknown>;
        check(avs.toFlight(row, NOW), c.row, `${file} row`);
      }
    });
  }
});
