// The simulated world's true flights served as AeroDataBox serves flights (OpenAPI 1.14 schema, as
// test/helpers/aerodatabox-fixture.ts does for hand-written ones): the by-number file of a local
// departure date, the FIDS departures and arrivals of an airport with legs (withLeg=true, at most 12
// local hours per request), an aircraft's flights by registration, each airport's coverage (its feeds: the first and
// last dates served), and 204 for nothing. Every request is counted
// by kind, so a batch's provider requests can be read off the stand-in itself.
// Used by test/batches-aerodatabox.test.ts (a batch, and the board poll feeding one) and the batch bench (bench/batches.mjs).
import { createServer } from 'node:http';

const STATUS = { on_time: 'Arrived', delayed: 'Arrived', cancelled: 'Canceled', diverted: 'Diverted' };

/** AeroDataBox's `{utc, local}` of an instant at a zone whose UTC offset is `minutes`. */
export function adbTime(ms, minutes) {
  const iso = new Date(ms).toISOString();
  const local = new Date(ms + minutes * 60_000).toISOString();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const z = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return {
    utc: `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`,
    local: `${local.slice(0, 10)} ${local.slice(11, 16)}${z}`,
  };
}

/**
 * AeroDataBox FlightContracts of the true flights. `airport(iata)` gives {icao, timezone} (the
 * reference airports); `offset(timezone, ms)` the zone's UTC offset in minutes then.
 */
export function adbFlights(truths, airport, offset) {
  const time = (iso, zone) => adbTime(Date.parse(iso), offset(zone, Date.parse(iso)));
  const flights = [];
  for (const t of truths) {
    const from = airport(t.origin);
    const to = airport(t.destination);
    if (!from || !to || !from.timezone || !to.timezone) continue;
    const end = (iata, a, scheduled, actual) => ({
      airport: { icao: a.icao, iata, name: iata, shortName: iata, countryCode: 'XX', timeZone: a.timezone },
      scheduledTime: time(scheduled, a.timezone),
      ...(actual ? { revisedTime: time(actual, a.timezone) } : {}),
      quality: ['Basic', 'Live'],
    });
    const settledAt = t.actualArrival ?? t.actualDeparture ?? t.scheduledArrival;
    const row = {
      number: `${t.flightNumber.slice(0, 2)} ${t.flightNumber.slice(2)}`,
      callSign: t.callsign,
      status: STATUS[t.status],
      codeshareStatus: 'IsOperator',
      isCargo: t.operation === 'cargo',
      lastUpdatedUtc: `${new Date(Date.parse(settledAt) + 3_600_000).toISOString().slice(0, 16).replace('T', ' ')}Z`,
      airline: { name: t.airline.name, iata: t.airline.iata ?? undefined, icao: t.airline.icao },
      aircraft: { reg: t.registration, model: t.aircraftType },
      departure: end(t.origin, from, t.scheduledDeparture, t.status === 'cancelled' ? null : t.actualDeparture),
      arrival: end(
        t.destination,
        to,
        t.scheduledArrival,
        t.status === 'cancelled' || t.status === 'diverted' ? null : t.actualArrival,
      ),
    };
    flights.push({
      row,
      number: t.flightNumber,
      origin: t.origin,
      destination: t.destination,
      registration: t.registration,
      departureLocal: row.departure.scheduledTime.local,
      arrivalLocal: row.arrival.scheduledTime.local,
    });
  }
  return flights;
}

const minuteOf = (local) => `${local.slice(0, 10)}T${local.slice(11, 16)}`;

/** Serves the flights; resolves with {url, requests: {flight, board, rotation, other}, close}. */
export async function startSimAdb(flights, key) {
  const byNumber = new Map();
  const byOrigin = new Map();
  const byDestination = new Map();
  const byRegistration = new Map();
  for (const f of flights) {
    const date = f.departureLocal.slice(0, 10);
    const k = `${f.number}|${date}`;
    byNumber.set(k, [...(byNumber.get(k) ?? []), f.row]);
    byOrigin.set(f.origin, [...(byOrigin.get(f.origin) ?? []), f]);
    byDestination.set(f.destination, [...(byDestination.get(f.destination) ?? []), f]);
    byRegistration.set(f.registration, [...(byRegistration.get(f.registration) ?? []), f]);
  }
  const requests = { flight: 0, board: 0, rotation: 0, coverage: 0, other: 0 };
  // Every airport's stored flights: the first and last local departure dates served.
  const dates = flights.map((f) => f.departureLocal.slice(0, 10)).sort();
  const general = {
    minAvailableLocalDate: `${dates[0]}T00:00:00Z`,
    maxAvailableLocalDate: `${dates.at(-1)}T00:00:00Z`,
  };
  const send = (res, status, body) => {
    if (body === undefined) {
      res.writeHead(status).end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://fixture');
    if (req.headers['x-rapidapi-key'] !== key) return send(res, 401, { message: 'Invalid API key.' });
    let m = /^\/flights\/number\/([^/]+)\/(\d{4}-\d{2}-\d{2})$/.exec(url.pathname);
    if (m) {
      requests.flight++;
      const rows = byNumber.get(`${decodeURIComponent(m[1]).replace(/\s+/g, '').toUpperCase()}|${m[2]}`);
      return rows ? send(res, 200, rows) : send(res, 204);
    }
    m =
      /^\/flights\/airports\/iata\/([A-Z0-9]{3})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})$/.exec(
        url.pathname,
      );
    if (m) {
      requests.board++;
      const [, code, from, to] = m;
      const hours = (Date.parse(`${to}Z`) - Date.parse(`${from}Z`)) / 3_600_000;
      if (!(hours > 0 && hours <= 12))
        return send(res, 400, { message: 'The time range must be positive and at most 12 hours.' });
      const direction = url.searchParams.get('direction');
      if (!['Departure', 'Arrival'].includes(direction) || url.searchParams.get('withLeg') !== 'true')
        return send(res, 400, { message: 'this stand-in serves departures or arrivals with legs only' });
      const departures = direction === 'Departure';
      const local = (f) => minuteOf(departures ? f.departureLocal : f.arrivalLocal);
      const rows = ((departures ? byOrigin : byDestination).get(code) ?? [])
        .filter((f) => local(f) >= from && local(f) <= to)
        .map((f) => f.row);
      if (rows.length === 0) return send(res, 204);
      return send(res, 200, departures ? { departures: rows, arrivals: [] } : { departures: [], arrivals: rows });
    }
    m = /^\/flights\/reg\/([^/]+)\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})$/.exec(
      url.pathname,
    );
    if (m) {
      requests.rotation++;
      const [, reg, from, to] = m;
      const rows = (byRegistration.get(decodeURIComponent(reg)) ?? [])
        .filter((f) => minuteOf(f.departureLocal) >= from && minuteOf(f.departureLocal) <= to)
        .map((f) => f.row);
      return rows.length === 0 ? send(res, 204) : send(res, 200, rows);
    }
    m = /^\/health\/services\/airports\/([A-Z]{4})\/feeds$/.exec(url.pathname);
    if (m) {
      requests.coverage++;
      const service = (name) => ({ service: name, status: 'OK' });
      return send(res, 200, {
        flightSchedulesFeed: service('FlightSchedules'),
        liveFlightUpdatesFeed: service('FlightLiveUpdates'),
        adsbUpdatesFeed: service('AdsbUpdates'),
        generalAvailability: general,
      });
    }
    requests.other++;
    return send(res, 204);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    total: () => requests.flight + requests.board + requests.rotation + requests.coverage + requests.other,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
