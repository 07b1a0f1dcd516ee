// How long a passenger has to claim: Regulation 261/2004 sets no limit, so national limitation periods
// apply (C-139/11 Cuadrench Moré), in the courts the claim may be brought (the departure or arrival
// place, C-204/08 Rehder, or the carrier's seat). For the countries a flight is connected to, each
// period, the day it runs out and its sources, from a reviewed table (limitation.json, dated; a
// country is `uncertain` where published sources disagree). Germany counts from the end of the year
// the claim arose (§§ 195, 199 BGB); the others from the flight.
import table from './limitation.json' with { type: 'json' };

interface Period {
  years?: number;
  months?: number;
  from: 'flight' | 'end_of_year';
  sources: string[];
  uncertain: boolean;
  note?: string;
}

export type Connection = 'departure' | 'arrival' | 'carrier';

export interface ClaimDeadline {
  /** ISO 3166 code. */
  country: string;
  /** How the flight is connected to it (one country may be several). */
  connections: Connection[];
  /** `3 years`, `24 months`. */
  period: string;
  runsFrom: 'flight' | 'end_of_year';
  /** The last day a claim can be brought there, YYYY-MM-DD. */
  runsOutOn: string;
  uncertain: boolean;
  note: string | null;
  sources: string[];
}

const PERIODS = (table as { countries: Record<string, Period> }).countries;
/** When the table was last reviewed, for the docs and the rationale. */
export const LIMITATION_REVIEWED: string = (table as { reviewed: string }).reviewed;

/** The date `years` and `months` after `date` (YYYY-MM-DD), the day before when that month is shorter (31 Jan + 1 month = 28/29 Feb). */
function addPeriod(date: string, years: number, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) + years * 12 + months;
  const year = Math.floor(total / 12);
  const month = total % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return `${year}-${String(month + 1).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

/** The deadlines in the countries connected to a flight on `flightDate`, soonest first; countries without a known period are left out. */
export function claimDeadlines(
  flightDate: string,
  countries: Partial<Record<Connection, string | null>>,
): ClaimDeadline[] {
  const byCountry = new Map<string, Connection[]>();
  for (const connection of ['departure', 'arrival', 'carrier'] as const) {
    const country = countries[connection];
    if (!country) continue;
    byCountry.set(country, [...(byCountry.get(country) ?? []), connection]);
  }
  const out: ClaimDeadline[] = [];
  for (const [country, connections] of byCountry) {
    const p = PERIODS[country];
    if (!p) continue;
    const years = p.years ?? 0;
    const months = p.months ?? 0;
    const runsOutOn =
      p.from === 'end_of_year'
        ? `${Number(flightDate.slice(0, 4)) + years}-12-31`
        : addPeriod(flightDate, years, months);
    out.push({
      country,
      connections,
      period: p.years !== undefined ? `${p.years} year${p.years === 1 ? '' : 's'}` : `${months} months`,
      runsFrom: p.from,
      runsOutOn,
      uncertain: p.uncertain,
      note: p.note ?? null,
      sources: p.sources,
    });
  }
  return out.sort((a, b) => a.runsOutOn.localeCompare(b.runsOutOn) || a.country.localeCompare(b.country));
}
