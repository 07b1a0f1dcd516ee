// A stand-in for aviationstack (apilayer) answering as its documentation and real answers show
// (../shared/research/providers.md §2): the key as the `access_key` query parameter, `{pagination,
// data}` envelopes, local times labelled `+00:00`, `flight_date` as the local departure date, lower-
// case codeshare values, 200 with empty `data` for nothing, `{error: {code, message}}` bodies, and a
// /timetable of camelCase rows with local times and string delays.
import { startFixtureServer, type FixtureReply, type FixtureRequest, type FixtureServer } from './fixture-server.js';

export const AVIATIONSTACK_KEY = 'avs-test-key-5c0e11';

export interface AvsFlight {
  flight_date: string;
  /** null in some real answers (issue 26). */
  flight_status: string | null;
  departure: Record<string, unknown>;
  arrival: Record<string, unknown>;
  airline: { name: string; iata: string | null; icao: string | null };
  flight: {
    number: string | null;
    iata: string | null;
    icao: string | null;
    codeshared: Record<string, string> | null;
  };
  aircraft: Record<string, string> | null;
  live: null;
}

export interface AvsFixture extends FixtureServer {
  flights: AvsFlight[];
  timetable: Record<string, unknown>[];
  airplanes: Record<string, unknown>[];
  script: FixtureReply[];
  /**
   * Recorded `/flights` answers (test/fixtures/real/aviationstack), as text sent verbatim. While any
   * is set, `/flights` answers the first whose rows carry the `flight_date` asked, whatever number is
   * asked (a recorded list holds the rows its source's query returned, other numbers too: the adapter
   * must pick its own), and an empty list for any other date; `flights` is not read.
   */
  recorded: RecordedAnswer[];
}

/** A recorded `/flights` answer: its text, and the local dates of its rows. */
export interface RecordedAnswer {
  text: string;
  dates: string[];
}

/**
 * A corpus file as an answer: a whole answer (`{pagination, data}`) as it is; one element of a
 * published `data` array wrapped as SOURCES.md says, `{"pagination": {...}, "data": [<file>]}`,
 * the element's text unchanged.
 */
export function recordedAnswer(fileText: string): RecordedAnswer {
  const parsed = JSON.parse(fileText) as { data?: { flight_date?: string }[]; flight_date?: string };
  const rows = Array.isArray(parsed.data) ? parsed.data : [parsed];
  const text = Array.isArray(parsed.data)
    ? fileText
    : `{"pagination": {"limit": 100, "offset": 0, "count": 1, "total": 1}, "data": [${fileText.trim()}]}`;
  return { text, dates: rows.map((r) => String(r.flight_date)) };
}

const envelope = (data: unknown[]) => ({
  pagination: { limit: 100, offset: 0, count: data.length, total: data.length },
  data,
});

export async function startAvsFixture(flights: AvsFlight[]): Promise<AvsFixture> {
  const state = {
    flights,
    timetable: [] as Record<string, unknown>[],
    airplanes: [] as Record<string, unknown>[],
    script: [] as FixtureReply[],
    recorded: [] as RecordedAnswer[],
  };
  const answer = (request: FixtureRequest): FixtureReply => {
    const key = request.query.get('access_key');
    if (!key)
      return {
        status: 401,
        body: { error: { code: 'missing_access_key', message: 'You have not supplied an API Access Key.' } },
      };
    if (key !== AVIATIONSTACK_KEY)
      return {
        status: 401,
        body: { error: { code: 'invalid_access_key', message: 'You have not supplied a valid API Access Key.' } },
      };
    const scripted = state.script.shift();
    if (scripted) return scripted;
    const q = (name: string) => request.query.get(name)?.toLowerCase() ?? null;
    if (request.path === '/flights' && state.recorded.length > 0) {
      const answer = state.recorded.find((r) => r.dates.includes(request.query.get('flight_date') ?? ''));
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: answer ? answer.text : JSON.stringify(envelope([])),
      };
    }
    if (request.path === '/flights') {
      const found = state.flights
        .filter((f) => !q('flight_iata') || f.flight.iata?.toLowerCase() === q('flight_iata'))
        .filter((f) => !q('flight_icao') || f.flight.icao?.toLowerCase() === q('flight_icao'))
        .filter((f) => !q('flight_date') || f.flight_date === q('flight_date'))
        .slice(0, Number(request.query.get('limit') ?? 100));
      return { status: 200, body: envelope(found) };
    }
    if (request.path === '/timetable') {
      const type = q('type');
      const rows = state.timetable.filter(
        (r) =>
          r.type === type &&
          String((r[type === 'departure' ? 'departure' : 'arrival'] as { iataCode: string }).iataCode).toLowerCase() ===
            q('iataCode'),
      );
      return { status: 200, body: envelope(rows) };
    }
    if (request.path === '/airplanes') {
      return {
        status: 200,
        body: envelope(
          state.airplanes.filter((a) => String(a.registration_number).toLowerCase() === q('registration_number')),
        ),
      };
    }
    return {
      status: 404,
      body: { error: { code: 'invalid_api_function', message: 'This API Function does not exist.' } },
    };
  };
  const server = await startFixtureServer(answer);
  return Object.assign(server, state);
}

/** The documented example: TR428 SIN → PEN on 2020-02-04, times local (UTC+8 both) labelled +00:00. */
export const TR428: AvsFlight = {
  flight_date: '2020-02-04',
  flight_status: 'landed',
  departure: {
    airport: 'Singapore Changi',
    timezone: 'Asia/Singapore',
    iata: 'SIN',
    icao: 'WSSS',
    terminal: '1',
    gate: 'D35',
    delay: 13,
    scheduled: '2020-02-04T20:25:00+00:00',
    estimated: '2020-02-04T20:25:00+00:00',
    actual: '2020-02-04T20:38:00+00:00',
    estimated_runway: '2020-02-04T20:38:00+00:00',
    actual_runway: '2020-02-04T20:38:00+00:00',
  },
  arrival: {
    airport: 'Penang International',
    timezone: 'Asia/Kuala_Lumpur',
    iata: 'PEN',
    icao: 'WMKP',
    terminal: 'I',
    gate: null,
    baggage: '2',
    delay: null,
    scheduled: '2020-02-04T21:50:00+00:00',
    estimated: '2020-02-04T21:50:00+00:00',
    actual: '2020-02-04T21:33:00+00:00',
    estimated_runway: '2020-02-04T21:33:00+00:00',
    actual_runway: '2020-02-04T21:33:00+00:00',
  },
  airline: { name: 'Scoot', iata: 'TR', icao: 'TGW' },
  flight: { number: '428', iata: 'TR428', icao: 'TGW428', codeshared: null },
  aircraft: { registration: '9V-TAU', iata: 'A320', icao: 'A320', icao24: '76D035' },
  live: null,
};
