// What a finding shows of its evidence: every report consulted, what was looked at and what could
// not be, and the airports' figures, each once, from the legs whose evidence was gathered.
import { iso } from '../clock.js';
import type { LegEvidence, Observed } from './attribute.js';
import { hourOf, WINDOW_AFTER, WINDOW_BEFORE } from './figures.js';
import type { AircraftSeen, AirportFigures, Seen, WeatherEvidence } from './shapes.js';

/**
 * Every report consulted, flagged or not, from each leg's windows, once each, in time order (then by
 * airport): a clean report at the time rebuts a weather defence as much as a storm supports one.
 */
export function shownWeather(evidence: LegEvidence[]): WeatherEvidence[] {
  const seen = new Set<string>();
  const out: { at: number; shown: WeatherEvidence }[] = [];
  for (const e of evidence) {
    for (const end of [e.departure, e.arrival]) {
      for (const o of end.weather ?? []) {
        const key = `${end.airport}|${o.report.at}|${o.report.raw}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ at: o.report.at, shown: shownReport(o, end.airport) });
      }
    }
  }
  return out
    .sort((a, b) => a.at - b.at || (a.shown.airport < b.shown.airport ? -1 : a.shown.airport > b.shown.airport ? 1 : 0))
    .map((x) => x.shown);
}

/** A report as shown, kept with it where the provider hands the same report again (service.ts `read`): every lookup at the airport then shows the same. */
const shownReports = new WeakMap<Observed, WeatherEvidence>();
function shownReport(o: Observed, airport: string): WeatherEvidence {
  let shown = shownReports.get(o);
  if (!shown || shown.airport !== airport)
    shownReports.set(o, (shown = { airport, at: iso(o.report.at), flags: o.flags, report: o.report.raw }));
  return shown;
}

/** What was looked at, per airport and window (each once), and the aircraft. */
export function shownSeen(evidence: LegEvidence[], aircraft: AircraftSeen): Seen {
  const out: Seen = { weather: [], boards: [], aircraft };
  const keys = new Set<string>();
  const once = (key: string) => !keys.has(key) && (keys.add(key), true);
  for (const e of evidence) {
    for (const end of [e.departure, e.arrival]) {
      const [from, to] = [iso(end.asked.from), iso(end.asked.to)];
      if (once(`w|${end.airport}|${from}|${to}`))
        out.weather.push({
          airport: end.airport,
          from,
          to,
          status: end.weather && end.weather.length > 0 ? 'read' : 'not_available',
        });
      const hour = hourOf(end.at);
      const [bFrom, bTo] = [iso(hour - WINDOW_BEFORE), iso(hour + WINDOW_AFTER)];
      if (once(`b|${end.airport}|${bFrom}`))
        out.boards.push({ airport: end.airport, from: bFrom, to: bTo, status: end.boardsSeen });
    }
  }
  return out;
}

export function shownFigures(evidence: LegEvidence[]): AirportFigures[] {
  const seen = new Set<string>();
  const out: AirportFigures[] = [];
  for (const e of evidence) {
    for (const end of [e.departure, e.arrival]) {
      const f = end.boards?.figures;
      if (!f || seen.has(`${f.airport}|${f.from}`)) continue;
      seen.add(`${f.airport}|${f.from}`);
      out.push(f);
    }
  }
  return out;
}
