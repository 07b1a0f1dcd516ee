// The date a booking is written in (docs/flight-lookup.md, "The date"). The specification's
// `flightDate` is the UTC date of the scheduled departure; boarding passes and claim forms print the
// departure airport's local date, and the two differ for every flight that leaves near local
// midnight. Three things here:
//   - `localTimes`: each of the record's times as the airports' clocks read it, with the zone, beside
//     the UTC fields the specification defines (stored with the record);
//   - the note a UTC lookup's rationale gains when the flight it found departs on another local date;
//   - `dateBasis=local`: a resolver around the lookup that finds the flight of a local date, asking
//     the UTC dates that local day spans, and answers it under the date as asked.
import { MINUTE } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { addDays, offsetMinutes } from '../providers/zones.js';
import type { FlightQuery } from './query.js';
import type { FlightResolver, Resolution, ResolveContext } from './resolver.js';
import type { FlightStatusData, LocalTimes } from './schema.js';
import type { SelectedRecord } from './shapes.js';

type Times = Pick<
  SelectedRecord,
  | 'originIata'
  | 'destinationIata'
  | 'scheduledDeparture'
  | 'estimatedDeparture'
  | 'actualDeparture'
  | 'scheduledArrival'
  | 'estimatedArrival'
  | 'actualArrival'
>;

/** `+01:00`, `-05:00`, `+05:45`. */
function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** An instant as the zone's clock reads it: `2026-12-02T00:05:00+01:00`. */
export function localIso(at: number, zone: string): string {
  const offset = offsetMinutes(zone, at);
  return `${new Date(at + offset * MINUTE).toISOString().slice(0, 19)}${offsetText(offset)}`;
}

/** A local time as pages and documents show it: `2026-12-02 00:05 (UTC+01:00)`; `—` for none. */
export const shownLocal = (iso: string | null | undefined): string =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} (UTC${iso.slice(19)})` : '—';

const zoneOf = (airports: ReferenceAirports, iata: string | null) =>
  iata ? (airports.find(iata)?.timezone ?? null) : null;

/** The record's times at its airports' clocks; null without a record. An airport the reference data does not know has no zone and no local times. */
export function localTimesOf(selected: Times | null, airports: ReferenceAirports): LocalTimes | null {
  if (!selected) return null;
  const end = (iata: string | null, times: (string | null)[]) => {
    const zone = zoneOf(airports, iata);
    const [scheduled, estimated, actual] = times.map((t) =>
      t !== null && zone ? localIso(Date.parse(t), zone) : null,
    );
    return { airport: iata, timezone: zone, scheduled: scheduled!, estimated: estimated!, actual: actual! };
  };
  return {
    departure: end(selected.originIata, [
      selected.scheduledDeparture,
      selected.estimatedDeparture,
      selected.actualDeparture,
    ]),
    arrival: end(selected.destinationIata, [
      selected.scheduledArrival,
      selected.estimatedArrival,
      selected.actualArrival,
    ]),
  };
}

/** The local date of the scheduled departure, with its offset; null when the departure airport's zone is not known. */
function departureDay(
  selected: Times,
  airports: ReferenceAirports,
): { date: string; offset: string; at: string } | null {
  const zone = zoneOf(airports, selected.originIata);
  if (!zone || !selected.scheduledDeparture) return null;
  const iso = localIso(Date.parse(selected.scheduledDeparture), zone);
  return { date: iso.slice(0, 10), offset: `UTC${iso.slice(19)}`, at: iso.slice(11, 16) };
}

/** How the UTC-date note begins: the local-date resolver takes it out of answers to a local date. */
const NOTE_START = 'Asked by the UTC date ';

/**
 * The rationale's note when the flight found on a UTC date departs on another local date (FR 6268
 * ZAZ→STN at 00:00 local on 1 December is 23:00 UTC on 30 November); null when they agree.
 */
export function utcDateNote(flightDate: string, selected: Times | null, airports: ReferenceAirports): string | null {
  const day = selected ? departureDay(selected, airports) : null;
  if (!day || day.date === flightDate) return null;
  const side = day.date > flightDate ? 'the day after' : 'the day before';
  return (
    `${NOTE_START}${flightDate} (as the API's flightDate is by default), this flight departs at ${day.at} on ${day.date} local time at ${selected!.originIata} ` +
    `(${day.offset}), ${side} the date asked: a boarding pass shows ${day.date}. To ask by the local date a booking shows, send dateBasis=local.`
  );
}

/**
 * A stored record's body with its local times and UTC-date note, as a live answer has them: records
 * stored before they were given gain them on replay (the body is returned as it is when it has them).
 */
export function withLocalTimes(body: string, flightDate: string, airports: ReferenceAirports): string {
  if (body.includes('"localTimes":')) return body;
  const record = JSON.parse(body) as Pick<FlightStatusData, 'selected' | 'flightDelay' | 'localTimes'>;
  record.localTimes = localTimesOf(record.selected, airports);
  const note = utcDateNote(flightDate, record.selected, airports);
  if (note && record.flightDelay) record.flightDelay.disruption.rationale.push(note);
  return JSON.stringify(record);
}

/** The UTC dates a local day spans at a zone's offset: its own date, and the one before (east of UTC) or after (west). */
export function utcDatesOf(localDate: string, offsetMinutes: number | null): string[] {
  if (offsetMinutes === null) return [localDate, addDays(localDate, -1), addDays(localDate, 1)];
  if (offsetMinutes > 0) return [localDate, addDays(localDate, -1)];
  if (offsetMinutes < 0) return [localDate, addDays(localDate, 1)];
  return [localDate];
}

/**
 * The lookup, with `dateBasis=local` translated: the UTC dates the local day spans at the departure
 * airport (the origin's zone when the query names it; otherwise the UTC date first, then the
 * neighbour the found flight's local date points to, or both) are asked in turn until a flight
 * departs on the local date asked. Each is an ordinary lookup (a settled one is a replay); the
 * answer carries the date as asked and `dateBasis: 'local'`. A UTC lookup passes through untouched.
 */
export class LocalDateResolver implements FlightResolver {
  constructor(
    private readonly inner: FlightResolver,
    private readonly airports: ReferenceAirports,
    /** Attaches the proof image to the answer found (the lookup's own), drawn with the date as asked; absent: none. */
    private readonly proof: (data: FlightStatusData) => Promise<FlightStatusData> = async (data) => data,
  ) {}

  /** A UTC lookup's replay (a local date is asked through `resolve`). */
  replay(query: FlightQuery, context: ResolveContext): Promise<string | null> {
    return query.dateBasis !== 'local' && this.inner.replay ? this.inner.replay(query, context) : Promise.resolve(null);
  }

  async resolve(query: FlightQuery, context: ResolveContext): Promise<Resolution> {
    if (query.dateBasis !== 'local') return this.inner.resolve(query, context);
    const zone = zoneOf(this.airports, query.origin);
    const noon = Date.parse(`${query.flightDate}T12:00:00Z`);
    const queue = utcDatesOf(query.flightDate, zone ? offsetMinutes(zone, noon) : null);
    // A UTC date whose flight what was seen final holds (the boards' kept rows, following's answer)
    // departs on the local date is asked first: answered from it, with no provider request for the others.
    const known = await this.knownDate(query, queue, context);
    if (known) queue.unshift(...queue.splice(queue.indexOf(known), 1));
    const seen: string[] = [];
    let last: FlightStatusData | null = null;
    for (let i = 0; i < queue.length; i++) {
      const utc = queue[i]!;
      // Drawn once, for the flight found, under the date as asked.
      const answer = await this.inner.resolve(
        { ...query, flightDate: utc, dateBasis: 'utc', screenshot: false },
        context,
      );
      if (answer.kind === 'unavailable') return answer;
      const { data } = answer;
      last = data;
      const day = data.selected ? departureDay(data.selected, this.airports) : null;
      if (data.selected && (day === null || day.date === query.flightDate)) {
        const found = this.asked(query, data, utc, day === null);
        return { kind: 'answered', data: query.screenshot ? await this.proof(found) : found };
      }
      if (day) {
        seen.push(`${day.date} ${day.at} (${day.offset})`);
        // Without the origin's zone, the found flight's own local date says which neighbour to ask; the other is not.
        if (!zone && i === 0) queue.splice(1, queue.length - 1, addDays(utc, day.date > query.flightDate ? -1 : 1));
      }
    }
    return { kind: 'answered', data: this.notFound(query, last!, seen) };
  }

  /** Of the UTC dates, the one whose flight already seen final departs on the local date asked. */
  private async knownDate(query: FlightQuery, dates: string[], context: ResolveContext): Promise<string | null> {
    if (!context.observed) return null;
    for (const flightDate of dates) {
      const seen = await context.observed.find({
        designator: query.designator,
        flightDate,
        origin: query.origin,
        destination: query.destination,
      });
      const zone = zoneOf(this.airports, seen?.departure.airport.iata ?? null);
      const at = seen?.departure.scheduled ?? null;
      if (seen?.settled && zone && at !== null && localIso(at, zone).slice(0, 10) === query.flightDate)
        return flightDate;
    }
    return null;
  }

  /** The found flight under the date as asked, its UTC date said in the rationale. */
  private asked(query: FlightQuery, data: FlightStatusData, utc: string, zoneUnknown: boolean): FlightStatusData {
    const said = zoneUnknown
      ? `Asked by the local date ${query.flightDate}: the departure airport's time zone is not known to this service, so the flight of the UTC date ${utc} is given.`
      : `Asked by the local date ${query.flightDate} at the departure airport: the flight's scheduled departure is on ${utc} in UTC, the date its record is kept under.`;
    const flightDelay = data.flightDelay
      ? {
          ...data.flightDelay,
          disruption: {
            ...data.flightDelay.disruption,
            rationale: [...data.flightDelay.disruption.rationale.filter((s) => !s.startsWith(NOTE_START)), said],
          },
        }
      : null;
    return { ...data, flightDate: query.flightDate, dateBasis: 'local', flightDelay };
  }

  private notFound(query: FlightQuery, last: FlightStatusData, seen: string[]): FlightStatusData {
    const found = seen.length > 0 ? ` The flights of that number found depart ${seen.join(' and ')} local time.` : '';
    return {
      ...last,
      flightDate: query.flightDate,
      dateBasis: 'local',
      originIata: query.origin,
      destinationIata: query.destination,
      selected: null,
      flightDelay: null,
      compensation: null,
      circumstances: null,
      localTimes: null,
      rationale: [
        `No flight ${query.flightNumber} departs on ${query.flightDate} local time at its departure airport.${found}`,
      ],
    };
  }
}
