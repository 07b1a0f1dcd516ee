// AeroDataBox (through RapidAPI, or any host serving its API) behind the provider interface. Every
// mapping decision is in docs/providers.md, "AeroDataBox"; the schema is the provider's OpenAPI 1.14.
//
// - Flights: GET /flights/number/{number}/{dateLocal}?dateLocalRole=Departure. The date is the
//   departure airport's local date, ours is the UTC date (spec 4.1): local-dates.ts chooses the
//   files to ask and the legs to keep. A codeshare row (IsCodeshared) is resolved to its operating
//   flight with one more request: the FIDS board, with legs, of the row's departure (else arrival)
//   airport around its scheduled time there.
// - Times: the strongest evidence (runway and block times over revised estimates, times over the
//   status text), each with its kind; where a row contradicts itself, a doubt, and never settled
//   (docs/providers.md, "AeroDataBox in practice").
// - Boards: GET /flights/airports/iata/{code}/{fromLocal}/{toLocal} in windows of at most 11 hours
//   (the API allows 12 local hours; 11 stays inside it across a DST change), merged; codeshare rows
//   folded into the operating flight's row.
// - Aircraft: GET /aircrafts/reg/{registration}.
// 204 No Content is AeroDataBox's "nothing found".
import { utcTime, type Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { failed, isObject, KeyedProvider, malformed, measured, normaliseDesignator, str, type KeyedSettings } from './measured.js';
import type {
  AircraftRecord,
  AirportRef,
  Direction,
  Answer,
  BoardRead,
  BoardRow,
  CallOptions,
  FlightEnd,
  FlightLookup,
  FlightPhase,
  FlightProvider,
  ProviderFlight,
} from './types.js';
import { hasLeft } from './types.js';
import type { Timer } from './timer.js';
import type { CallWindow } from './upstream.js';
import { legsOnUtcDate, type LocalFile } from './local-dates.js';
import { localMinute, offsetMinutes, parseInstant } from './zones.js';

export const AERODATABOX_URL = 'https://aerodatabox.p.rapidapi.com';
/** RapidAPI's entry (Basic) plan allows about one request a second; its monthly quota is the real bound. */
export const AERODATABOX_REQUESTS_PER_MINUTE = 30;
const BOARD_PIECE_MS = 11 * 3_600_000;

type Json = Record<string, unknown>;

/** Statuses after which the flight has left its gate. */
const DEPARTED = new Set(['Departed', 'EnRoute', 'Approaching', 'Arrived', 'Diverted']);

function phaseOf(status: string): FlightPhase {
  switch (status) {
    case 'Expected':
    case 'CheckIn':
    case 'Boarding':
    case 'GateClosed':
    case 'Delayed':
      return 'scheduled';
    case 'Departed':
    case 'EnRoute':
    case 'Approaching':
      return 'departed';
    case 'Arrived':
      return 'landed';
    case 'Canceled':
      return 'cancelled';
    case 'Diverted':
      return 'diverted';
    default:
      // Unknown, CanceledUncertain ("probably cancelled": expected updates never came), anything new
      return 'unknown';
  }
}

type TimeField = 'scheduledTime' | 'revisedTime' | 'runwayTime' | 'predictedTime';
/** The legacy flat twins (answers of 2020 to mid-2023): `actualTime*` is the flat form of `revisedTime`. */
const FLAT: Record<TimeField, string> = {
  scheduledTime: 'scheduledTimeUtc',
  revisedTime: 'actualTimeUtc',
  runwayTime: 'runwayTimeUtc',
  predictedTime: 'predictedTimeUtc',
};

/** A time of an end: the `{utc, local}` object, else its legacy flat `…Utc` field. */
const time = (end: Json | undefined, field: TimeField): number | null => {
  const value = end?.[field];
  return (isObject(value) ? parseInstant(value.utc) : null) ?? parseInstant(end?.[FLAT[field]]);
};

/** The local twin of an end's scheduled time (`2023-08-01 20:45+01:00`), structured or flat. */
function scheduledLocal(end: unknown): string | null {
  if (!isObject(end)) return null;
  const structured = isObject(end.scheduledTime) ? end.scheduledTime.local : undefined;
  return typeof structured === 'string' ? structured : typeof end.scheduledTimeLocal === 'string' ? end.scheduledTimeLocal : null;
}

function airportOf(value: unknown): AirportRef {
  if (!isObject(value)) return { iata: null, icao: null };
  return { iata: str(value.iata)?.toUpperCase() ?? null, icao: str(value.icao)?.toUpperCase() ?? null };
}

const minutes = (ms: number) => Math.round(ms / 60_000);
/** A taxi-out longer than this after a revised departure equal to the schedule says the revised time is the schedule's copy. */
const COPIED_SCHEDULE_TAXI_MS = 15 * 60_000;
/** An arrival this much later than its schedule while the revised departure equals the schedule (no runway time) is a contradiction. */
const COPIED_SCHEDULE_ARRIVAL_MS = 30 * 60_000;

interface EndTimes {
  scheduled: number | null;
  revised: number | null;
  runway: number | null;
  predicted: number | null;
}
const timesOf = (end: Json | undefined): EndTimes => ({
  scheduled: time(end, 'scheduledTime'),
  revised: time(end, 'revisedTime'),
  runway: time(end, 'runwayTime'),
  predicted: time(end, 'predictedTime'),
});

/** Statuses before the aircraft leaves its gate. */
const PRE_DEPARTURE = new Set(['Expected', 'CheckIn', 'Boarding', 'GateClosed', 'Delayed']);

/**
 * What one row (a `FlightContract`, or the `movement` of a FIDS row) says happened, taking the
 * strongest evidence: runway and block times over revised estimates, and the times over the status
 * text. Every place the row contradicts itself becomes a doubt (docs/providers.md, "AeroDataBox in
 * practice").
 */
interface Reading {
  departure: Omit<FlightEnd, 'airport' | 'runway'>;
  arrival: Omit<FlightEnd, 'airport' | 'runway'>;
  phase: FlightPhase;
  doubts: string[];
}

function estimateOf(t: EndTimes): Pick<FlightEnd, 'estimated' | 'estimatedKind'> {
  // revisedTime is the airline's or airport's revision; predictedTime AeroDataBox's own model.
  if (t.revised !== null) return { estimated: t.revised, estimatedKind: 'revised' };
  if (t.predicted !== null) return { estimated: t.predicted, estimatedKind: 'estimated' };
  return { estimated: null };
}

function read(status: string, dep: EndTimes, arr: EndTimes, lastUpdated: number | null, observedAt: number): Reading {
  const doubts: string[] = [];
  const cancelled = status === 'Canceled';
  const diverted = status === 'Diverted';
  let phase = phaseOf(status);

  // A cancelled day keeps a revised time equal to the schedule: it is no estimate of a flight that operated.
  if (cancelled) {
    const seen = dep.runway ?? arr.runway;
    if (seen !== null) doubts.push(`The status says Canceled while a runway time shows a movement at ${utcTime(seen)}.`);
    return { departure: { scheduled: dep.scheduled, estimated: null, actual: null, runwayAt: null }, arrival: { scheduled: arr.scheduled, estimated: null, actual: null, runwayAt: null }, phase, doubts };
  }

  // Departure. A take-off time is the strongest evidence that it happened, whatever the status says.
  const departure: Reading['departure'] = { scheduled: dep.scheduled, ...estimateOf(dep), actual: null, runwayAt: null };
  const departedByStatus = DEPARTED.has(status);
  if (dep.runway !== null && !departedByStatus && status !== 'Unknown') {
    doubts.push(`The status says ${status} while the runway time shows a take-off at ${utcTime(dep.runway)}; the take-off is used.`);
  }
  // The revised departure can be the schedule's copy: a take-off well after it, or an arrival far later without a take-off time.
  const copiedSchedule = dep.revised !== null && dep.revised === dep.scheduled;
  const arrivalSeen = arr.runway ?? arr.revised;
  const copyByArrival =
    copiedSchedule && dep.runway === null && arrivalSeen !== null && arr.scheduled !== null && arrivalSeen - arr.scheduled >= COPIED_SCHEDULE_ARRIVAL_MS;
  if (copyByArrival) {
    doubts.push(
      `The revised departure time equals the schedule (${utcTime(dep.revised!)}) while the arrival time (${utcTime(arrivalSeen!)}) is ${minutes(arrivalSeen! - arr.scheduled!)} minutes after its schedule; the departure time is taken for a copy of the schedule.`,
    );
  }
  if (departedByStatus || dep.runway !== null) {
    departure.runwayAt = dep.runway;
    if (dep.runway !== null && (dep.revised === null || dep.revised === dep.runway)) {
      // No block time, or a "block" time copied from the runway time: a runway time.
      Object.assign(departure, { actual: dep.runway, actualKind: 'runway' });
    } else if (dep.runway !== null && copiedSchedule && dep.runway - dep.revised! > COPIED_SCHEDULE_TAXI_MS) {
      doubts.push(`The revised departure time equals the schedule (${utcTime(dep.revised!)}) while the runway time shows a take-off at ${utcTime(dep.runway)}; the runway time is used.`);
      Object.assign(departure, { actual: dep.runway, actualKind: 'runway' });
    } else if (dep.revised !== null && !copyByArrival) {
      Object.assign(departure, { actual: dep.revised, actualKind: 'block' });
    }
  }

  // Arrival. A landing time is evidence of an arrival; "Arrived" alone is not when the only arrival time is still ahead.
  const arrival: Reading['arrival'] = { scheduled: arr.scheduled, ...estimateOf(arr), actual: null, runwayAt: null };
  const arrived = status === 'Arrived';
  if (arr.runway !== null && !diverted) {
    if (!arrived) doubts.push(`The status says ${status} while the runway time shows a landing at ${utcTime(arr.runway)}; the landing is used.`);
    arrival.runwayAt = arr.runway;
    if (arr.revised === null || arr.revised === arr.runway) Object.assign(arrival, { actual: arr.runway, actualKind: 'runway' });
    else Object.assign(arrival, { actual: arr.revised, actualKind: 'block' });
  } else if (arrived && arr.revised !== null) {
    // lastUpdatedUtc does not date the status (it can come a day later), but an arrival after it, or after now, is not one yet.
    const asOf = Math.min(lastUpdated ?? observedAt, observedAt);
    if (arr.revised > asOf) {
      doubts.push(
        `The status says Arrived as of ${utcTime(asOf)} (${lastUpdated !== null && lastUpdated <= observedAt ? "the provider's last update" : 'the time of the call'}) while the only arrival time, ${utcTime(arr.revised)}, is an estimate still ahead of it; no arrival time is taken from it.`,
      );
    } else Object.assign(arrival, { actual: arr.revised, actualKind: 'block' });
  } else if (arrived) {
    doubts.push('The status says Arrived but no arrival time is given.');
  }

  // The phase the evidence shows, where the status text says less.
  if (arrival.actual !== null && (phase === 'scheduled' || phase === 'departed' || phase === 'unknown')) phase = 'landed';
  else if (departure.actual !== null && (phase === 'scheduled' || phase === 'unknown')) phase = 'departed';
  else if (phase === 'landed' && arrival.actual === null) phase = departure.actual !== null ? 'departed' : 'unknown';
  return { departure, arrival, phase, doubts };
}

const operationOf = (row: Json): ProviderFlight['operation'] => (row.isCargo === true ? 'cargo' : 'passenger');

function airlineOf(value: unknown): ProviderFlight['airline'] {
  if (!isObject(value)) return { name: null, iata: null, icao: null };
  return { name: str(value.name), iata: str(value.iata)?.toUpperCase() ?? null, icao: str(value.icao)?.toUpperCase() ?? null };
}

/** `KL 1395` is IATA; a three-letter prefix (`KLM 1395`) is ICAO. */
function designators(number: string | null): { iata: string | null; icao: string | null } {
  if (!number) return { iata: null, icao: null };
  const compact = normaliseDesignator(number);
  return /^[A-Z]{3}\d/.test(compact) ? { iata: null, icao: compact } : { iata: compact, icao: null };
}

/** The row is a marketing number's (`IsCodeshared`): it does not name its operating flight. */
const isCodeshare = (row: Json) => row.codeshareStatus === 'IsCodeshared';

export function toFlight(row: Json, observedAt: number): ProviderFlight | null {
  if (!isObject(row.departure) || !isObject(row.arrival)) return null;
  const status = str(row.status) ?? 'Unknown';
  const reading = read(status, timesOf(row.departure), timesOf(row.arrival), parseInstant(row.lastUpdatedUtc), observedAt);
  const cancelled = status === 'Canceled';
  const diverted = status === 'Diverted';
  const number = designators(str(row.number));
  const aircraft = isObject(row.aircraft) ? row.aircraft : null;
  return {
    provider: 'aerodatabox',
    flightIata: number.iata,
    flightIcao: number.icao,
    callsign: str(row.callSign)?.toUpperCase() ?? null,
    airline: airlineOf(row.airline),
    // Set when a codeshare row is resolved to its operating flight (AeroDataBoxProvider.resolve).
    operating: null,
    codeshares: [],
    operation: operationOf(row),
    departure: { airport: airportOf(row.departure.airport), runway: str(row.departure.runway), ...reading.departure },
    arrival: { airport: airportOf(row.arrival.airport), runway: str(row.arrival.runway), ...reading.arrival },
    divertedTo: null,
    phase: reading.phase,
    cancelled,
    diverted,
    statusRaw: str(row.status),
    aircraft: aircraft
      ? { registration: str(aircraft.reg)?.toUpperCase() ?? null, icao24: str(aircraft.modeS)?.toUpperCase() ?? null, typeIcao: null, typeIata: null, label: str(aircraft.model) }
      : null,
    observedAt,
    // Arrived with an arrival time, cancelled, or diverted (AeroDataBox's last word on a diversion);
    // never with a doubt.
    settled: reading.doubts.length === 0 && (cancelled || diverted || (status === 'Arrived' && reading.arrival.actual !== null)),
    ...(reading.doubts.length > 0 ? { doubts: reading.doubts } : {}),
  };
}

/** Whether two airports are the same: null when either gives no code to compare. */
function sameAirport(a: AirportRef, b: AirportRef): boolean | null {
  if (a.icao && b.icao) return a.icao === b.icao;
  if (a.iata && b.iata) return a.iata === b.iata;
  return null;
}

const otherEnd = (end: Direction): Direction => (end === 'departure' ? 'arrival' : 'departure');

/**
 * The operating row of a codeshare among a board's rows (read at the codeshare's `end`): the same
 * scheduled time there, and the same other airport or other scheduled time, nothing that differs
 * (the aircraft neither). Exactly one, or none.
 */
function operatorOf(codeshare: ProviderFlight, end: Direction, candidates: ProviderFlight[]): ProviderFlight | null {
  const other = otherEnd(end);
  const found = candidates.filter((op) => {
    if (op.flightIata === codeshare.flightIata && op.flightIcao === codeshare.flightIcao) return false;
    if (op[end].scheduled !== codeshare[end].scheduled || sameAirport(op[end].airport, codeshare[end].airport) === false) return false;
    const checks = [
      op[other].scheduled !== null && codeshare[other].scheduled !== null ? op[other].scheduled === codeshare[other].scheduled : null,
      sameAirport(op[other].airport, codeshare[other].airport),
    ];
    const regs = [op.aircraft?.registration, codeshare.aircraft?.registration];
    if (regs[0] && regs[1] && regs[0] !== regs[1]) return false;
    return !checks.includes(false) && checks.includes(true);
  });
  return found.length === 1 ? found[0]! : null;
}

/** The codeshare's record with the operating flight's status and times; the designator stays the one asked. */
function asMarketing(codeshare: ProviderFlight, op: ProviderFlight): ProviderFlight {
  const fill = (a: AirportRef, b: AirportRef): AirportRef => ({ iata: a.iata ?? b.iata, icao: a.icao ?? b.icao });
  const digits = (op.flightIata ?? op.flightIcao ?? '').replace(/^[A-Z0-9]{2}(?=\d)|^[A-Z]{3}(?=\d)/, '');
  return {
    ...op,
    flightIata: codeshare.flightIata,
    flightIcao: codeshare.flightIcao,
    airline: codeshare.airline,
    operating: {
      flightIata: op.flightIata,
      flightIcao: op.flightIcao ?? (op.airline.icao && digits ? `${op.airline.icao}${digits}` : null),
      airline: op.airline,
    },
    departure: { ...op.departure, airport: fill(op.departure.airport, codeshare.departure.airport) },
    arrival: { ...op.arrival, airport: fill(op.arrival.airport, codeshare.arrival.airport) },
  };
}

/** A codeshare row kept as it is: never settled, saying why. */
function unresolved(codeshare: ProviderFlight, why: string): ProviderFlight {
  const number = codeshare.flightIata ?? codeshare.flightIcao ?? 'the number';
  const doubts = [
    ...(codeshare.doubts ?? []),
    `${number} is a codeshare whose operating flight ${why}; a codeshare row's status and times lag the operating flight's, so it cannot settle the flight.`,
  ];
  if (codeshare.departure.scheduled === null) doubts.push('The codeshare row gives no departure time.');
  return { ...codeshare, settled: false, doubts };
}

export class AeroDataBoxProvider extends KeyedProvider implements FlightProvider {
  constructor(
    settings: KeyedSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
    /** The HTTP client's time and waits (timer.ts): real by default, a test's manual timer. */
    timer?: Timer,
  ) {
    // Checked by the airport of Amsterdam: a TIER 1 call, the cheapest the API has.
    super('aerodatabox', settings, { headers: { 'x-rapidapi-key': settings.key, 'x-rapidapi-host': new URL(settings.url).host } }, { path: '/airports/iata/AMS' }, timer);
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'flight', options, async (window) => {
      const designator = normaliseDesignator(lookup.designator);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(lookup.flightDate) || !/^[A-Z0-9]{3,10}$/.test(designator)) return { outcome: 'miss' };
      const now = this.clock.now();
      const rows = new WeakMap<ProviderFlight, Json>();
      const found = await legsOnUtcDate(lookup, {
        originZone: (lookup.origin && this.airports.find(lookup.origin)?.timezone) || null,
        file: (date) => this.file(designator, date, window),
        toFlight: (row) => {
          const flight = toFlight(row, now);
          if (flight) rows.set(flight, row);
          return flight;
        },
        offsetOf: (row) => localOffset(scheduledLocal(row.departure)),
        // A codeshare row can give no departure time, and a FIDS-born row no code for the board's own airport.
        keepUndated: true,
        codelessAirportsMatch: true,
      });
      if (found.outcome !== 'hit' && found.outcome !== 'incomplete') return found;
      const legs: ProviderFlight[] = [];
      for (const leg of setAsideStale(found.value)) {
        const row = rows.get(leg);
        legs.push(row && isCodeshare(row) ? await this.resolve(leg, row, lookup, now, window) : leg);
      }
      if (legs.length === 0) return { outcome: 'miss' };
      // A resolved codeshare now has its operator's departure time.
      legs.sort((a, b) => (a.departure.scheduled ?? Infinity) - (b.departure.scheduled ?? Infinity));
      return { outcome: legs.every((f) => f.settled) ? 'hit' : 'incomplete', value: legs };
    });
  }

  /**
   * A codeshare row resolved to its operating flight: the FIDS board (with legs, operators only) of
   * the end whose airport and scheduled time the row gives, an hour either side of that time. One
   * request more per codeshare leg; a failure, no match or two matches keep the row, unsettled, with
   * a doubt.
   */
  private async resolve(codeshare: ProviderFlight, row: Json, lookup: FlightLookup, now: number, window: CallWindow): Promise<ProviderFlight> {
    const ends: [Direction, string | null | undefined][] = [
      ['departure', lookup.origin],
      ['arrival', lookup.destination],
    ];
    for (const [end, asked] of ends) {
      const at = codeshare[end].scheduled;
      const airport = codeshare[end].airport;
      const code = airport.iata ?? airport.icao ?? (asked ? asked.toUpperCase() : null);
      if (at === null || !code) continue;
      const zone = this.airports.find(code)?.timezone;
      const offset = localOffset(scheduledLocal(row[end])) ?? (zone ? offsetMinutes(zone, at) : null);
      if (offset === null) continue;
      const wall = (ms: number) => new Date(ms + offset * 60_000).toISOString().slice(0, 16);
      const sent = await this.upstream.get(
        `/flights/airports/${/^[A-Z0-9]{3}$/.test(code) ? 'iata' : 'icao'}/${encodeURIComponent(code)}/${wall(at - 3_600_000)}/${wall(at + 3_600_000)}`,
        { direction: end === 'departure' ? 'Departure' : 'Arrival', withLeg: true, withCancelled: true, withCodeshared: false, withCargo: true, withPrivate: false, withLocation: false },
        window,
        [200, 204],
      );
      if (!sent.ok) return unresolved(codeshare, `could not be looked up (${sent.error.message})`);
      const list = isObject(sent.body) ? sent.body[end === 'departure' ? 'departures' : 'arrivals'] : undefined;
      const candidates = (Array.isArray(list) ? list : [])
        .filter((item): item is Json => isObject(item) && !isCodeshare(item))
        .map((item) => toFlight(item, now))
        .filter((f): f is ProviderFlight => f !== null)
        // The board's own airport is often left out of its rows.
        .map((f) => {
          if (f[end].airport.iata || f[end].airport.icao) return f;
          const here: AirportRef = { iata: /^[A-Z0-9]{3}$/.test(code) ? code : null, icao: /^[A-Z]{4}$/.test(code) ? code : null };
          return end === 'departure' ? { ...f, departure: { ...f.departure, airport: here } } : { ...f, arrival: { ...f.arrival, airport: here } };
        });
      const operator = operatorOf(codeshare, end, candidates);
      return operator ? asMarketing(codeshare, operator) : unresolved(codeshare, `is not on the ${end === 'departure' ? 'departures' : 'arrivals'} board of ${code} at ${utcTime(at)}`);
    }
    return unresolved(codeshare, 'cannot be looked for (no end with both an airport and a scheduled time)');
  }

  /** One local date's file of the number: its rows, none on 204. */
  private async file(designator: string, date: string, window: CallWindow): Promise<LocalFile<Json>> {
    const sent = await this.upstream.get(
      `/flights/number/${encodeURIComponent(designator)}/${date}`,
      { dateLocalRole: 'Departure', withAircraftImage: false, withLocation: false },
      window,
      [200, 204],
    );
    if (!sent.ok) return failed(sent);
    if (sent.status === 204 || sent.body === null) return { outcome: 'rows', rows: [] };
    if (!Array.isArray(sent.body) || !sent.body.every(isObject)) return malformed(this.name, 'a flight lookup');
    return { outcome: 'rows', rows: sent.body };
  }

  readBoard(read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(read.airport);
      if (!airport || !(read.to > read.from)) return { outcome: 'miss' };
      const direction = read.board === 'departures' ? 'Departure' : 'Arrival';
      const rows: { row: BoardRow; codeshared: boolean }[] = [];
      for (let from = read.from; from < read.to; from += BOARD_PIECE_MS) {
        const to = Math.min(read.to, from + BOARD_PIECE_MS);
        const sent = await this.upstream.get(
          `/flights/airports/iata/${airport.iata}/${localMinute(from, airport.timezone)}/${localMinute(to, airport.timezone)}`,
          { direction, withLeg: false, withCancelled: true, withCodeshared: true, withCargo: true, withPrivate: false, withLocation: false },
          window,
          [200, 204],
        );
        if (!sent.ok) return failed(sent);
        if (sent.status === 204 || sent.body === null) continue;
        if (!isObject(sent.body)) return malformed(this.name, 'a board');
        const list = sent.body[read.board];
        if (list === undefined) continue;
        if (!Array.isArray(list)) return malformed(this.name, 'a board');
        for (const item of list) {
          if (!isObject(item)) continue;
          const read_ = boardRow(item, read, { iata: airport.iata, icao: airport.icao }, this.clock.now());
          if (read_ && read_.row.scheduledAt >= read.from && read_.row.scheduledAt < read.to) rows.push(read_);
        }
      }
      return { outcome: 'hit', value: foldCodeshares(rows) };
    });
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.upstream, this.clock, 'aircraft', options, async (window) => {
      const reg = registration.trim().toUpperCase();
      if (!/^[A-Z0-9-]{2,10}$/.test(reg)) return { outcome: 'miss' };
      const sent = await this.upstream.get(`/aircrafts/reg/${encodeURIComponent(reg)}`, { withImage: false, withRegistrations: false }, window, [200, 204]);
      if (!sent.ok) return failed(sent);
      if (sent.status === 204 || sent.body === null) return { outcome: 'miss' };
      if (!isObject(sent.body)) return malformed(this.name, 'an aircraft');
      const a = sent.body;
      return {
        outcome: 'hit',
        value: {
          registration: str(a.reg)?.toUpperCase() ?? reg,
          icao24: str(a.hexIcao)?.toUpperCase() ?? null,
          typeIcao: str(a.icaoCode)?.toUpperCase() ?? null,
          typeIata: str(a.iataType)?.toUpperCase() ?? null,
          label: str(a.typeName) ?? str(a.model),
          airline: str(a.airlineName) ? { name: str(a.airlineName), iata: null, icao: null } : null,
          operation: a.isFreighter === true ? 'cargo' : 'passenger',
          seats: typeof a.numSeats === 'number' && a.numSeats > 0 ? a.numSeats : null,
        },
      };
    });
  }
}

/** The offset in minutes of a local time (`2024-03-12 08:15+01:00` → 60). */
function localOffset(local: string | null): number | null {
  if (local === null) return null;
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(local.trim());
  if (!m) return /Z$/i.test(local.trim()) ? 0 : null;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/**
 * A FIDS row (`withLeg=false`): `movement` holds the times at the board's airport and names the
 * other airport.
 */
function boardRow(item: Json, read_: BoardRead, here: AirportRef, observedAt: number): { row: BoardRow; codeshared: boolean } | null {
  const movement = isObject(item.movement) ? item.movement : null;
  const scheduledAt = time(movement ?? undefined, 'scheduledTime');
  const flightNumber = str(item.number);
  if (!movement || scheduledAt === null || !flightNumber) return null;
  const status = str(item.status) ?? 'Unknown';
  const departures = read_.board === 'departures';
  const none: EndTimes = { scheduled: null, revised: null, runway: null, predicted: null };
  const times = timesOf(movement);
  // The same evidence rules as a flight's, on the one end the row gives; its doubts are the lookup's to say.
  const reading = read(status, departures ? times : none, departures ? none : times, parseInstant(item.lastUpdatedUtc), observedAt);
  const end = departures ? reading.departure : reading.arrival;
  const other = airportOf(movement.airport);
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
  };
  return { row, codeshared: isCodeshare(item) };
}

/**
 * With `withCodeshared=true` every marketing number is its own row. A codeshare row (`IsCodeshared`)
 * is folded into the one operating row with the same scheduled time and other airport, and the same
 * callsign where both give one (codeshare rows often give none); its number joins `codeshares`. One
 * without a single match stays as it is.
 */
function foldCodeshares(rows: { row: BoardRow; codeshared: boolean }[]): BoardRow[] {
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
      (op) => op.scheduledAt === row.scheduledAt && sameAirport(otherOf(op), otherOf(row)) === true && (!row.callsign || !op.callsign || op.callsign === row.callsign),
    );
    if (hosts.length === 1) {
      const number = row.flightIata ?? row.flightIcao;
      if (number && !hosts[0]!.codeshares.includes(number)) hosts[0]!.codeshares.push(number);
    } else out.push(row);
  }
  return out.sort((a, b) => a.scheduledAt - b.scheduledAt);
}

/**
 * A leg without a departure time beside a dated leg of the same number and route is a stale extra
 * row: set aside, with a doubt on the dated leg when the two disagree on the status.
 */
function setAsideStale(legs: ProviderFlight[]): ProviderFlight[] {
  const dated = legs.filter((f) => f.departure.scheduled !== null);
  const out: ProviderFlight[] = [];
  for (const leg of legs) {
    if (leg.departure.scheduled !== null) {
      out.push(leg);
      continue;
    }
    const twin = dated.find(
      (d) =>
        sameAirport(d.departure.airport, leg.departure.airport) === true ||
        sameAirport(d.arrival.airport, leg.arrival.airport) === true ||
        (leg.arrival.scheduled !== null && d.arrival.scheduled === leg.arrival.scheduled),
    );
    if (!twin) {
      out.push(leg);
      continue;
    }
    if (leg.statusRaw !== twin.statusRaw) {
      const number = leg.flightIata ?? leg.flightIcao ?? 'the number';
      twin.doubts = [...(twin.doubts ?? []), `A second row of ${number} without a departure time says ${leg.statusRaw ?? 'nothing'} where this one says ${twin.statusRaw ?? 'nothing'}; it is set aside.`];
      twin.settled = false;
    }
  }
  return out;
}
