// AeroDataBox's FIDS board rows mapped to BoardRows, codeshare rows folded into their operating row.
import { isObject, str } from '../measured.js';
import type { AirportRef, BoardRead, BoardRow } from '../types.js';
import { hasLeft } from '../types.js';
import { parseInstant } from '../zones.js';
import {
  type Json,
  time,
  airportOf,
  type EndTimes,
  timesOf,
  read,
  operationOf,
  airlineOf,
  designators,
  isCodeshare,
} from './flight.js';
import { sameAirport } from './codeshare.js';

/** The offset in minutes of a local time (`2024-03-12 08:15+01:00` → 60). */
export function localOffset(local: string | null): number | null {
  if (local === null) return null;
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(local.trim());
  if (!m) return /Z$/i.test(local.trim()) ? 0 : null;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/**
 * A FIDS row. With `withLeg=true` (what the poll asks) it holds both ends, `departure` and `arrival`,
 * the board's own airport left out; with `withLeg=false`, `movement` holds the times at the board's
 * airport and names the other airport.
 */
export function boardRow(
  item: Json,
  read_: BoardRead,
  here: AirportRef,
  observedAt: number,
): { row: BoardRow; codeshared: boolean } | null {
  const departures = read_.board === 'departures';
  const legs = isObject(item.departure) && isObject(item.arrival);
  const movement = legs
    ? ((departures ? item.departure : item.arrival) as Json)
    : isObject(item.movement)
      ? item.movement
      : null;
  const far = legs ? ((departures ? item.arrival : item.departure) as Json) : null;
  const scheduledAt = time(movement ?? undefined, 'scheduledTime');
  const flightNumber = str(item.number);
  if (!movement || scheduledAt === null || !flightNumber) return null;
  const status = str(item.status) ?? 'Unknown';
  const none: EndTimes = { scheduled: null, revised: null, runway: null, predicted: null };
  const times = timesOf(movement);
  const farTimes = far ? timesOf(far) : none;
  // The same evidence rules as a flight's, on the ends the row gives; its doubts are the lookup's to say.
  const reading = read(
    status,
    departures ? times : farTimes,
    departures ? farTimes : times,
    parseInstant(item.lastUpdatedUtc),
    observedAt,
  );
  const end = departures ? reading.departure : reading.arrival;
  const farEnd = departures ? reading.arrival : reading.departure;
  const other = airportOf(far ? far.airport : movement.airport);
  const number = designators(flightNumber);
  const aircraft = isObject(item.aircraft) ? item.aircraft : null;
  const row: BoardRow = {
    flightNumber,
    flightIata: number.iata,
    flightIcao: number.icao,
    callsign: str(item.callSign)?.toUpperCase() ?? null,
    direction: departures ? 'departure' : 'arrival',
    airline: airlineOf(item.airline),
    codeshares: [],
    operation: operationOf(item),
    aircraftType: aircraft ? str(aircraft.model) : null,
    registration: aircraft ? (str(aircraft.reg)?.toUpperCase() ?? null) : null,
    origin: departures ? here : other,
    destination: departures ? other : here,
    divertedTo: null,
    scheduledAt,
    estimatedAt: end.estimated,
    actualAt: end.actual,
    status,
    cancelled: status === 'Canceled',
    diverted: status === 'Diverted',
    runway: str(movement.runway),
    departed: hasLeft(reading.phase),
    // The other end only where the evidence raised no doubt: a lookup with one would not settle.
    ...(far && farEnd.scheduled !== null && reading.doubts.length === 0
      ? { otherEnd: { scheduledAt: farEnd.scheduled, estimatedAt: farEnd.estimated, actualAt: farEnd.actual } }
      : {}),
  };
  return { row, codeshared: isCodeshare(item) };
}

/**
 * With `withCodeshared=true` every marketing number is its own row. A codeshare row (`IsCodeshared`)
 * is folded into the one operating row with the same scheduled time and other airport, and the same
 * callsign where both give one (codeshare rows often give none); its number joins `codeshares`. One
 * without a single match stays as it is.
 */
export function foldCodeshares(rows: { row: BoardRow; codeshared: boolean }[]): BoardRow[] {
  const otherOf = (r: BoardRow) => (r.direction === 'departure' ? r.destination : r.origin);
  const seen = new Set<string>();
  const out: BoardRow[] = [];
  const codeshares: BoardRow[] = [];
  for (const { row, codeshared } of rows) {
    const id = `${row.scheduledAt}|${row.flightNumber}`;
    if (seen.has(id)) continue; // the same row in two windows
    seen.add(id);
    (codeshared ? codeshares : out).push(row);
  }
  const operating = [...out];
  for (const row of codeshares) {
    const hosts = operating.filter(
      (op) =>
        op.scheduledAt === row.scheduledAt &&
        sameAirport(otherOf(op), otherOf(row)) === true &&
        (!row.callsign || !op.callsign || op.callsign === row.callsign),
    );
    if (hosts.length === 1) {
      const number = row.flightIata ?? row.flightIcao;
      if (number && !hosts[0]!.codeshares.includes(number)) hosts[0]!.codeshares.push(number);
    } else out.push(row);
  }
  return out.sort((a, b) => a.scheduledAt - b.scheduledAt);
}
