// The simulated world as AeroDataBox answers a flight by number *at the moment asked* (OpenAPI 1.14
// schema), for following a watched flight over its life: before departure its schedule and estimates,
// in the air its departure and expected arrival, after landing its arrival, as the world's provider
// view shows them at the service's clock (bench/sim-adb.mjs serves the final truth instead). Every
// request is counted; `refuse(n, seconds)` answers the next n requests 429 with a Retry-After.
// Used by test/watch-follow.test.ts and bench/watch-follow.mjs.
import { createServer } from 'node:http';
import { adbTime } from './sim-adb.mjs';

const MINUTE = 60_000;

/**
 * One provider-neutral flight (as the simulated world's provider gives it at `now`) as an AeroDataBox
 * FlightContract. `zoneOf(iata)` gives the airport's time zone; `offset(zone, ms)` its UTC offset in minutes.
 */
export function adbRowOf(flight, zoneOf, offset, now) {
  const dep = flight.departure;
  const arr = flight.arrival;
  const status = flight.cancelled
    ? 'Canceled'
    : flight.diverted
      ? 'Diverted'
      : flight.phase === 'landed'
        ? 'Arrived'
        : flight.phase === 'departed'
          ? 'EnRoute'
          : dep.estimated !== null && dep.scheduled !== null && dep.estimated - dep.scheduled >= 15 * MINUTE
            ? 'Delayed'
            : 'Expected';
  const end = (e, revised) => {
    const zone = zoneOf(e.airport.iata) ?? 'UTC';
    const at = (ms) => adbTime(ms, offset(zone, ms));
    return {
      airport: { icao: e.airport.icao, iata: e.airport.iata, name: e.airport.iata, timeZone: zone },
      ...(e.scheduled !== null ? { scheduledTime: at(e.scheduled) } : {}),
      ...(revised !== null && !flight.cancelled ? { revisedTime: at(revised) } : {}),
      quality: ['Basic', 'Live'],
    };
  };
  const number = flight.flightIata ?? flight.flightIcao;
  return {
    number: `${number.slice(0, 2)} ${number.slice(2)}`,
    callSign: flight.callsign ?? undefined,
    status,
    codeshareStatus: 'IsOperator',
    isCargo: flight.operation === 'cargo',
    lastUpdatedUtc: adbTime(now, 0).utc,
    airline: { name: flight.airline.name, iata: flight.airline.iata ?? undefined, icao: flight.airline.icao },
    aircraft: flight.aircraft ? { reg: flight.aircraft.registration, model: flight.aircraft.label } : undefined,
    departure: end(dep, dep.actual ?? dep.estimated),
    arrival: end(arr, flight.diverted ? null : (arr.actual ?? arr.estimated)),
  };
}

/**
 * Serves `/flights/number/{number}/{localDate}` from `legsOn(number, localDate)` (the FlightContracts of
 * the legs whose local departure date is that date, as now), 204 for none; with `aircraftOn`,
 * `/flights/reg/{reg}/{from}/{to}` (an aircraft's flights between two times, TIER 3) from
 * `aircraftOn(reg, fromMs, toMs)` as now, the times read as UTC (the adapter widens its window by the
 * zones' span and keeps what it asked for). Any other request is passed to `fallback` (a
 * bench/sim-adb.mjs server: boards, an aircraft's final flights, the feeds, which count their own
 * requests) or answered 204. Resolves with {url, requests: {flight, aircraft, refused, other},
 * total, refuse, close}.
 */
export async function startLiveAdb(legsOn, key, fallback = null, aircraftOn = null) {
  const requests = { flight: 0, aircraft: 0, refused: 0, other: 0 };
  let refusals = { left: 0, seconds: 0 };
  const send = (res, status, body, headers = {}) => {
    if (body === undefined) return res.writeHead(status, headers).end();
    const text = JSON.stringify(body);
    res
      .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
      .end(text);
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://fixture');
    if (req.headers['x-rapidapi-key'] !== key) return send(res, 401, { message: 'Invalid API key.' });
    if (refusals.left > 0) {
      refusals.left--;
      requests.refused++;
      return send(res, 429, { message: 'Too many requests' }, { 'retry-after': String(refusals.seconds) });
    }
    const reg = /^\/flights\/reg\/([^/]+)\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})$/.exec(
      url.pathname,
    );
    if (reg && aircraftOn) {
      requests.aircraft++;
      const [, registration, from, to] = reg;
      Promise.resolve(aircraftOn(decodeURIComponent(registration), Date.parse(`${from}Z`), Date.parse(`${to}Z`))).then(
        (rows) => (rows.length === 0 ? send(res, 204) : send(res, 200, rows)),
        (error) => send(res, 500, { message: String(error) }),
      );
      return;
    }
    const m = /^\/flights\/number\/([^/]+)\/(\d{4}-\d{2}-\d{2})$/.exec(url.pathname);
    if (!m && fallback) {
      fetch(`${fallback}${req.url}`, { headers: { 'x-rapidapi-key': key } }).then(
        async (answer) => {
          const text = await answer.text();
          res.writeHead(answer.status, text ? { 'content-type': 'application/json' } : {}).end(text || undefined);
        },
        (error) => send(res, 502, { message: String(error) }),
      );
      return;
    }
    if (!m) {
      requests.other++;
      return send(res, 204);
    }
    requests.flight++;
    Promise.resolve(legsOn(decodeURIComponent(m[1]).replace(/\s+/g, '').toUpperCase(), m[2])).then(
      (rows) => (rows.length === 0 ? send(res, 204) : send(res, 200, rows)),
      (error) => send(res, 500, { message: String(error) }),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    /** Requests served here (a 429 is not served; what went to `fallback` is counted there). */
    total: () => requests.flight + requests.aircraft + requests.other,
    refuse: (n, seconds) => {
      refusals = { left: n, seconds };
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
