// The Iowa Environmental Mesonet's ASOS/METAR archive (FLIGHTSTATUS_WEATHER=iem): public, no key,
// worldwide METARs by ICAO station, kept since the 1990s. One request per airport and window:
//   GET {FLIGHTSTATUS_IEM_URL}/cgi-bin/request/asos.py?station=EDDF&data=metar&sts=…Z&ets=…Z
//       &tz=Etc/UTC&format=onlycomma&latlon=no&missing=M&trace=T&direct=no&report_type=3&report_type=4
// answers CSV: a `station,valid,metar` header, then one report a line (`valid` is the observation
// time, `YYYY-MM-DD HH:MM` in the asked zone; routine reports are type 3, specials type 4). An unknown
// station answers the header alone, like a station without reports in the window. The same HTTP
// client as the flight providers (src/providers/upstream.ts): a per-minute budget
// (FLIGHTSTATUS_IEM_REQUESTS_PER_MINUTE), retries within the deadline, a 429's Retry-After, a breaker,
// every request counted. docs/weather.md says what it costs (nothing but politeness).
import type { Clock } from '../clock.js';
import {
  failed,
  measured,
  ProviderStats,
  statusOf,
  Upstream,
  type Answer,
  type CallOptions,
  type ProviderStatus,
} from '../providers/index.js';
import type { Timer } from '../providers/timer.js';
import { MAX_WEATHER_WINDOW_MS, type WeatherProvider, type WeatherQuery } from './provider.js';
import { readReport, ReportError, type WeatherReport } from './report.js';

export const IEM_URL = 'https://mesonet.agron.iastate.edu';
export const IEM_PATH = '/cgi-bin/request/asos.py';

export interface IemSettings {
  url: string;
  requestsPerMinute: number;
}

export class IemWeatherProvider implements WeatherProvider {
  readonly name = 'iem';
  readonly stats = new ProviderStats('iem');
  private readonly upstream: Upstream;

  constructor(
    private readonly settings: IemSettings,
    private readonly clock: Clock,
    timer?: Timer,
  ) {
    this.upstream = new Upstream({
      provider: 'iem',
      baseUrl: settings.url.replace(/\/+$/, ''),
      requestsPerMinute: settings.requestsPerMinute,
      stats: this.stats,
      body: 'text',
      ...(timer ? { clock: timer } : {}),
    });
  }

  reports(query: WeatherQuery, options?: CallOptions): Promise<Answer<WeatherReport[]>> {
    if (query.to - query.from > MAX_WEATHER_WINDOW_MS)
      throw new RangeError('weather is read two days at a time at most');
    const station = query.station.toUpperCase();
    return measured<WeatherReport[]>(this.upstream, this.clock, 'weather', options, async (window) => {
      if (!/^[A-Z][A-Z0-9]{3}$/.test(station)) return { outcome: 'miss' };
      const sent = await this.upstream.get(
        IEM_PATH,
        {
          station,
          data: 'metar',
          sts: stamp(query.from),
          ets: stamp(query.to),
          tz: 'Etc/UTC',
          format: 'onlycomma',
          latlon: 'no',
          missing: 'M',
          trace: 'T',
          direct: 'no',
          report_type: ['3', '4'],
        },
        window,
      );
      if (!sent.ok) return failed(sent);
      const rows = readCsv(String(sent.body), station);
      if (!rows)
        return {
          outcome: 'error',
          error: { kind: 'bad_response', message: 'iem answered without its station,valid,metar header' },
        };
      // The archive's window is inclusive at its end; ours is not.
      return { outcome: 'hit', value: rows.filter((r) => r.at >= query.from && r.at < query.to) };
    });
  }

  status(): ProviderStatus {
    return statusOf(this.name, this.settings.url, this.settings.requestsPerMinute, this.upstream, this.stats);
  }
}

/** `2024-01-01T00:00Z`, the form asos.py reads for sts and ets. */
function stamp(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16)}Z`;
}

/**
 * The reports of an onlycomma answer, oldest first; null when the header is not there. A line that is
 * not a report of the station (another station, a missing value, text no parser reads) is left out:
 * one bad line in an archive does not hide the others.
 */
export function readCsv(text: string, station: string): WeatherReport[] | null {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const header = lines
    .shift()
    ?.split(',')
    .map((h) => h.trim().toLowerCase());
  if (!header) return null;
  const at = { station: header.indexOf('station'), valid: header.indexOf('valid'), metar: header.indexOf('metar') };
  if (at.station < 0 || at.valid < 0 || at.metar !== header.length - 1) return null;
  const reports: WeatherReport[] = [];
  for (const line of lines) {
    const cells = line.split(',');
    // The report is the last column and may itself hold commas (a remark): keep the rest whole.
    const metar = cells.slice(at.metar).join(',').trim();
    const valid = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})$/.exec(cells[at.valid]?.trim() ?? '');
    if (cells[at.station]?.trim().toUpperCase() !== station || !valid || metar === '' || metar === 'M') continue;
    try {
      reports.push(readReport(metar, Date.parse(`${valid[1]}T${valid[2]}:00Z`)));
    } catch (error) {
      if (!(error instanceof ReportError)) throw error;
    }
  }
  return reports.sort((a, b) => a.at - b.at);
}
