// A stand-in for the Iowa Environmental Mesonet's METAR archive (cgi-bin/request/asos.py), answering
// as its own code does (test/fixtures/iem/FORMAT.md): `format=onlycomma` CSV with a `station,valid,metar`
// header, `valid` as `YYYY-MM-DD HH:MM` in the asked zone (UTC here), rows by time, `ets` exclusive;
// an unknown station is the header alone; times it cannot read are a 422 "Invalid times provided.".
// It replays real archived reports (test/fixtures/iem/reports.json, each with its provenance).
import { readFileSync } from 'node:fs';
import { startFixtureServer, type FixtureReply, type FixtureServer } from './fixture-server.js';

export interface IemReport {
  station: string;
  valid: string;
  metar: string;
}

export const IEM_REPORTS: IemReport[] = (
  JSON.parse(readFileSync(new URL('../fixtures/iem/reports.json', import.meta.url), 'utf8')) as { reports: IemReport[] }
).reports;

export interface IemFixture extends FixtureServer {
  reports: IemReport[];
  /** Replies taken first, one per request (429, 503, garbage…). */
  script: FixtureReply[];
}

/** `2019-06-05T20:00Z` (asos.py wants a zone) to epoch ms; null when unreadable. */
function instant(text: string | null): number | null {
  if (!text || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

export async function startIemFixture(reports: IemReport[] = IEM_REPORTS): Promise<IemFixture> {
  const state = { reports: [...reports], script: [] as FixtureReply[] };
  const server = await startFixtureServer((request) => {
    const scripted = state.script.shift();
    if (scripted) return scripted;
    if (request.path !== '/cgi-bin/request/asos.py')
      return { status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain' } };
    const stations = request.query.getAll('station').flatMap((s) => s.split(','));
    if (stations.length === 0 || !stations.every((s) => /^[A-Z0-9_]{3,4}$/.test(s)))
      return { status: 422, body: 'Invalid station provided.', headers: { 'content-type': 'text/plain' } };
    const from = instant(request.query.get('sts'));
    const to = instant(request.query.get('ets'));
    if (from === null || to === null || to <= from)
      return { status: 422, body: 'Invalid times provided.', headers: { 'content-type': 'text/plain' } };
    const rows = state.reports
      .filter((r) => stations.includes(r.station))
      .filter((r) => {
        const at = Date.parse(`${r.valid.replace(' ', 'T')}:00Z`);
        return at >= from && at < to;
      })
      .sort((a, b) => a.valid.localeCompare(b.valid))
      .map((r) => `${r.station},${r.valid},${r.metar}`);
    return {
      status: 200,
      body: ['station,valid,metar', ...rows, ''].join('\n'),
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    };
  });
  return Object.assign(server, state);
}
