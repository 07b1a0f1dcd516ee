// Which watched flights a board row is (followed.ts): by designator (IATA, ICAO, codeshare), by the
// departure's date in UTC or at the origin's clock, by the airports a watch names, on either board.
import { describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import type { BoardRow } from '../providers/index.js';
import { boardRowAt } from '../../test/helpers/board-row.js';
import { FollowedFlights, watchLinks } from './followed.js';
import type { WatchedFlight } from './store.js';

// 23:30 UTC on 1 March: 01:30 on 2 March at Bucharest (UTC+2).
const DEPARTS = Date.UTC(2026, 2, 1, 23, 30);

const row = (patch: Partial<BoardRow> = {}): BoardRow => boardRowAt(DEPARTS, { codeshares: ['LO9001'], ...patch });

const watch = (id: string, patch: Partial<WatchedFlight> = {}): WatchedFlight => ({
  id,
  flightNumber: 'W63101',
  flightDate: '2026-03-01',
  dateBasis: 'utc',
  origin: null,
  destination: null,
  ...patch,
});

describe('the watched flights of a board row', () => {
  const airports = loadReferenceAirports();
  const followed = new FollowedFlights(
    [
      watch('utc'),
      watch('local', { flightDate: '2026-03-02', dateBasis: 'local' }),
      watch('local-wrong-day', { dateBasis: 'local' }),
      watch('icao', { flightNumber: 'WZZ3101', origin: 'OTP' }),
      watch('codeshare', { flightNumber: 'LO9001', destination: 'LTN' }),
      watch('other-origin', { origin: 'CLJ' }),
      watch('other-destination', { destination: 'STN' }),
      watch('next-day', { flightDate: '2026-03-02' }),
      watch('other-number', { flightNumber: 'W63102' }),
    ],
    airports,
  );

  it('matches a departures row by designator, date basis and the airports a watch names', () => {
    expect(followed.match('OTP', 'departures', row()).sort()).toEqual(['codeshare', 'icao', 'local', 'utc']);
  });

  it("dates an arrivals row by its departure: the board's other end, else its arrival less a flight time", () => {
    const arrival = row({ direction: 'arrival', scheduledAt: DEPARTS + 3 * 3600_000 + 20 * 60_000 });
    expect(
      followed
        .match('LTN', 'arrivals', { ...arrival, otherEnd: { scheduledAt: DEPARTS, estimatedAt: null, actualAt: null } })
        .sort(),
    ).toEqual(['codeshare', 'icao', 'local', 'utc']);
    // OTP–LTN is about 2,100 km: the estimate lands on the same departure date.
    expect(followed.match('LTN', 'arrivals', arrival).sort()).toEqual(['codeshare', 'icao', 'local', 'utc']);
    // An arrivals row whose other end is not known at all matches nothing.
    expect(followed.match('LTN', 'arrivals', { ...arrival, origin: { iata: null, icao: null } })).toEqual([]);
  });

  it('links only the event types watches receive', () => {
    const event = (type: string) => ({
      id: `evt_${type}`,
      type,
      airport: 'OTP',
      board: 'departures',
      flight_id: 'fl_1',
      created_at: DEPARTS,
      data: '{}',
    });
    const links = watchLinks(
      ['flight.tracked', 'flight.status_changed', 'flight.delayed', 'flight.divert_updated'].map(event),
      ['wch_a', 'wch_b'],
    );
    expect(links.map((l) => [l.event_type, l.watch_id])).toEqual([
      ['flight.tracked', 'wch_a'],
      ['flight.tracked', 'wch_b'],
      ['flight.delayed', 'wch_a'],
      ['flight.delayed', 'wch_b'],
    ]);
    expect(watchLinks([event('flight.delayed')], [])).toEqual([]);
  });
});
