// The simulated world's weather: per airport and half hour, deterministic from the seed, seasonal and
// regional, and the cause of some of the world's delays, diversions and cancellations (day.ts asks
// how severe it is where and when a leg leaves and lands). Each half hour is one observation, issued
// at hh:20 and hh:50 UTC as a METAR string the same parser reads as a real archive's, and judged by the
// same flags (src/weather/): the world's severity is the one the verdict will read from its report.
//
// The climate (docs/simulation.md, "Weather"): an airport-day has at most one weather event, drawn by
// season and region: fog on autumn and winter mornings (inland, the Po valley most), snow in northern
// and continental winters (heavy one time in three), freezing rain in continental winters, afternoon
// thunderstorms in summer (south more than north), and gales in the Atlantic-facing north-west in
// autumn and winter. Between events: light winds, good visibility, ordinary cloud.
import { LRUCache } from 'lru-cache';
import { DAY, MINUTE } from '../clock.js';
import { lruCache } from '../lru.js';
import type { ReferenceAirport } from '../airports/index.js';
import {
  flagsOf,
  runwaysOf,
  severityOf,
  type Runway,
  type Severity,
  type WeatherFlag,
  type WeatherReport,
} from '../weather/index.js';
import { hashString, Rng } from './random.js';

/** One half hour's observation at an airport. */
export interface SimObservation {
  /** When it was observed (hh:20 or hh:50 UTC). */
  at: number;
  report: WeatherReport;
  flags: WeatherFlag[];
  severity: Severity;
  /** The weather event under way, for the truth and the docs; null between events. */
  event: WeatherEvent | null;
}

export type WeatherEvent = 'fog' | 'snow' | 'freezing_rain' | 'thunderstorm' | 'gale';

interface EventPlan {
  kind: WeatherEvent;
  /** Half-hour slots of the UTC day [start, end). */
  start: number;
  end: number;
  /** 0–1: how strong it gets at its peak. */
  strength: number;
}

const SLOTS = 48;
const SLOT = 30 * MINUTE;
/** Minutes past the slot's start its report is issued: hh:20 and hh:50. */
const ISSUED_AT = 20 * MINUTE;

/** Atlantic-facing countries where autumn and winter gales are common. */
const GALE_COUNTRIES = new Set(['GB', 'IE', 'NL', 'BE', 'DK', 'NO', 'IS', 'FO']);

/**
 * What is kept of the weather, both bounded (unbounded, ten days of the world's flights held 121 MB
 * of observations, and with the world's other caches more heap than `npm start` gives):
 * - every airport-day's severities, 48 bytes each, for the day simulation, which asks only that;
 * - the full observations (about 11 kB an airport-day) of the few airport-days whose reports are
 *   read (the simulated weather archive, the circumstances).
 * Beyond either bound the least recently used are simulated again when asked: the same observations,
 * since they follow from the seed (146 µs an airport-day).
 */
export const CACHED_SEVERITY_DAYS = 20_000;
export const CACHED_WEATHER_DAYS = 400;

const SEVERITIES: readonly Severity[] = ['none', 'within_limits', 'beyond_limits'];

export class SimWeather {
  private readonly days = new LRUCache<string, SimObservation[]>({ max: CACHED_WEATHER_DAYS });
  private readonly severities = lruCache<string, Uint8Array>(CACHED_SEVERITY_DAYS);

  constructor(private readonly seed: number) {}

  /** Airport-days held now: full observations, and severities. */
  get cachedDays(): { observations: number; severities: number } {
    return { observations: this.days.size, severities: this.severities.size };
  }

  /** The observation of the half hour holding `at`. */
  at(airport: ReferenceAirport, at: number): SimObservation {
    const day = Math.floor(at / DAY);
    return this.day(airport, day)[Math.floor((at - day * DAY) / SLOT)]!;
  }

  /** How bad the weather was at the airport at `at`. */
  severity(airport: ReferenceAirport, at: number): Severity {
    const day = Math.floor(at / DAY);
    const codes = this.severities.get(`${airport.iata}|${day}`) ?? this.simulate(airport, day).codes;
    return SEVERITIES[codes[Math.floor((at - day * DAY) / SLOT)]!]!;
  }

  /** The observations issued in [from, to), oldest first. */
  between(airport: ReferenceAirport, from: number, to: number): SimObservation[] {
    const out: SimObservation[] = [];
    for (let slot = Math.floor((from - ISSUED_AT) / SLOT); slot * SLOT + ISSUED_AT < to; slot++) {
      const at = slot * SLOT + ISSUED_AT;
      if (at >= from) out.push(this.at(airport, at));
    }
    return out;
  }

  private day(airport: ReferenceAirport, day: number): SimObservation[] {
    const key = `${airport.iata}|${day}`;
    let slots = this.days.get(key);
    if (!slots) {
      slots = this.simulate(airport, day).slots;
      this.days.set(key, slots);
    }
    return slots;
  }

  /** Simulates an airport-day, keeping its severities whoever asked (the full slots are the caller's to keep). */
  private simulate(airport: ReferenceAirport, day: number): { slots: SimObservation[]; codes: Uint8Array } {
    const slots = simulateDay(this.seed, airport, day);
    const codes = Uint8Array.from(slots, (o) => SEVERITIES.indexOf(o.severity));
    this.severities.set(`${airport.iata}|${day}`, codes);
    return { slots, codes };
  }
}

/** The month (1–12) as the seasons count it: shifted by six months south of the equator. */
function seasonMonth(airport: ReferenceAirport, day: number): number {
  const month = new Date(day * DAY).getUTCMonth() + 1;
  return airport.latitude < 0 ? ((month + 5) % 12) + 1 : month;
}

/** Solar time: UTC shifted by longitude (weather follows the sun, not the clock). */
function solarHour(airport: ReferenceAirport, slot: number): number {
  return (((slot / 2 + airport.longitude / 15) % 24) + 24) % 24;
}

function pick(month: number, table: Record<string, number>): number {
  for (const [months, value] of Object.entries(table)) if (months.split(',').includes(String(month))) return value;
  return table.else ?? 0;
}

/** The day's weather event, if any: one draw per kind in a fixed order; the first that happens wins. */
function planEvent(airport: ReferenceAirport, month: number, rng: Rng): EventPlan | null {
  const lat = Math.abs(airport.latitude);
  const continental = airport.longitude >= 12 && lat >= 44;
  const poValley = lat >= 44 && lat <= 46 && airport.longitude >= 8 && airport.longitude <= 13;
  // Per airport, fixed: how fog-prone it is (sea and southern coasts little, inland basins much).
  const fogginess = poValley ? 1.7 : lat < 40 ? 0.25 : 0.5 + (hashString(airport.iata) % 100) / 100;
  const snowiness = lat >= 58 ? 1.4 : continental ? 1 : lat >= 48 ? 0.6 : lat >= 44 ? 0.3 : lat >= 40 ? 0.05 : 0;
  const tsiness = lat < 46 ? 1 : lat < 52 ? 0.8 : 0.4;
  const galeiness = GALE_COUNTRIES.has(airport.countryCode) ? 1 : lat >= 52 ? 0.5 : 0.25;
  const slotsFrom = (solarStart: number) => Math.floor(((((solarStart - airport.longitude / 15) % 24) + 24) % 24) * 2);

  const fog = pick(month, { '11,12,1': 0.1, '10,2': 0.06, '9,3': 0.03, else: 0.005 }) * fogginess;
  if (rng.chance(fog)) {
    const start = slotsFrom(rng.between(1, 6));
    return { kind: 'fog', start, end: start + rng.between(4, 14), strength: rng.next() };
  }
  const snow = pick(month, { '12,1,2': 0.12, '11,3': 0.05, '10,4': 0.01 }) * snowiness;
  if (rng.chance(snow)) {
    const start = rng.int(SLOTS);
    return { kind: 'snow', start, end: start + rng.between(6, 24), strength: rng.next() };
  }
  const freezing = pick(month, { '12,1,2': 0.02, '11,3': 0.008 }) * (continental ? 1 : lat >= 48 ? 0.2 : 0);
  if (rng.chance(freezing)) {
    const start = rng.int(SLOTS);
    return { kind: 'freezing_rain', start, end: start + rng.between(4, 10), strength: rng.next() };
  }
  const storm = pick(month, { '6,7,8': 0.14, '5,9': 0.08, '4,10': 0.03, else: 0.01 }) * tsiness;
  if (rng.chance(storm)) {
    const start = slotsFrom(rng.between(12, 18));
    return { kind: 'thunderstorm', start, end: start + rng.between(2, 6), strength: rng.next() };
  }
  const gale = pick(month, { '11,12,1,2': 0.06, '10,3': 0.04, else: 0.01 }) * galeiness;
  if (rng.chance(gale)) {
    const start = rng.int(SLOTS);
    return { kind: 'gale', start, end: start + rng.between(8, 28), strength: rng.next() };
  }
  return null;
}

/** The 48 observations of an airport's UTC day. Events may start late and run into the night; only this day's part is kept. */
function simulateDay(seed: number, airport: ReferenceAirport, day: number): SimObservation[] {
  const rng = new Rng(hashString(`weather|${airport.iata}|${day}`, seed));
  const month = seasonMonth(airport, day);
  const event = planEvent(airport, month, rng);
  const runways = runwaysOf(airport.icao);
  const headings = runways.flatMap((r) => r.headings);
  // The day's background: prevailing wind, pressure, temperature.
  const lat = Math.abs(airport.latitude);
  const mean = 37 - 0.6 * lat;
  const amplitude = 5 + 0.2 * Math.max(0, lat - 30);
  const seasonal = -Math.cos(((month - 1.5) / 12) * 2 * Math.PI);
  const dayMean = mean + amplitude * seasonal + rng.normal() * 2.5;
  const prevailing = 180 + rng.between(0, 12) * 10;
  const baseWind = rng.between(3, 12) + (GALE_COUNTRIES.has(airport.countryCode) ? 4 : 0);
  const qnh = rng.between(1002, 1030);
  const cloudBase = rng.between(8, 50) * 100;
  const slots: SimObservation[] = new Array(SLOTS);
  for (let slot = 0; slot < SLOTS; slot++) {
    const at = day * DAY + slot * SLOT + ISSUED_AT;
    const solar = solarHour(airport, slot);
    const diurnal = -Math.cos(((solar - 3) / 24) * 2 * Math.PI) * 4;
    const active = event && slot >= event.start && slot < event.end ? event : null;
    // How far into the event (0 at its edges, 1 in its middle).
    const peak = active ? 1 - Math.abs((slot - active.start + 0.5) / (active.end - active.start) - 0.5) * 2 : 0;
    const state: SkyState = {
      windDirection: (prevailing + rng.between(-3, 3) * 10 + 360) % 360,
      windKt: Math.max(1, baseWind + rng.between(-3, 3)),
      gustKt: null,
      visibilityM: 10_000,
      rvrM: null,
      weather: [],
      clouds: [rng.chance(0.3) ? 'NSC' : `${rng.pick(['FEW', 'SCT', 'BKN'])}${pad3(cloudBase / 100)}`],
      temperature: Math.round(dayMean + diurnal),
      dewPoint: 0,
    };
    state.dewPoint = state.temperature - rng.between(2, 9);
    if (active) applyEvent(state, active, peak, rng, runways);
    const report = reportOf(airport, at, state, qnh, runways);
    const flags = flagsOf(report, headings);
    slots[slot] = { at, report, flags, severity: severityOf(report, flags), event: active?.kind ?? null };
  }
  return slots;
}

interface SkyState {
  windDirection: number;
  windKt: number;
  gustKt: number | null;
  visibilityM: number;
  rvrM: number | null;
  weather: string[];
  clouds: string[];
  temperature: number;
  dewPoint: number;
}

/** Changes a half hour's sky by the event under way, at `peak` (0–1) of its course. */
function applyEvent(state: SkyState, event: EventPlan, peak: number, rng: Rng, runways: Runway[]): void {
  const strength = event.strength * (0.4 + 0.6 * peak);
  switch (event.kind) {
    case 'fog': {
      // From mist (1,500 m) to thick fog (100 m) at the strongest; RVR reported under 1,500 m.
      const visibility = Math.round((1500 - strength * 1400) / 50) * 50;
      state.visibilityM = visibility;
      state.weather = [visibility < 1000 ? 'FG' : 'BR'];
      state.rvrM =
        visibility < 1500 && runways.length > 0 ? Math.max(75, Math.round((visibility * 1.5) / 25) * 25) : null;
      const base = Math.max(0, Math.round((4 - strength * 4) * (visibility < 300 ? 0 : 1)));
      state.clouds = [visibility < 300 ? `VV${pad3(Math.max(0, base))}` : `OVC${pad3(Math.max(1, base))}`];
      state.windKt = Math.min(state.windKt, 4);
      state.dewPoint = state.temperature;
      break;
    }
    case 'snow': {
      const heavy = strength > 0.65;
      state.weather = [heavy ? '+SN' : strength > 0.3 ? 'SN' : '-SN'];
      state.visibilityM = heavy
        ? rng.between(4, 9) * 100
        : strength > 0.3
          ? rng.between(15, 40) * 100
          : rng.between(40, 80) * 100;
      state.clouds = [`OVC${pad3(heavy ? rng.between(4, 8) : rng.between(8, 20))}`];
      state.temperature = Math.min(state.temperature, rng.between(-4, 0));
      state.dewPoint = state.temperature - 1;
      break;
    }
    case 'freezing_rain': {
      state.weather = [strength > 0.5 ? 'FZRA' : '-FZRA'];
      state.visibilityM = rng.between(20, 60) * 100;
      state.clouds = [`OVC${pad3(rng.between(5, 12))}`];
      state.temperature = rng.between(-3, -1);
      state.dewPoint = state.temperature - 1;
      break;
    }
    case 'thunderstorm': {
      // Over the station at its strongest; otherwise in the vicinity, or only the towering cloud.
      const overhead = strength > 0.5;
      state.weather = overhead ? [strength > 0.8 ? '+TSRA' : 'TSRA'] : strength > 0.25 ? ['VCTS'] : [];
      state.clouds = [`FEW${pad3(rng.between(20, 40))}CB`, `BKN${pad3(rng.between(45, 80))}`];
      state.visibilityM = overhead ? rng.between(15, 60) * 100 : 10_000;
      state.gustKt = overhead ? state.windKt + rng.between(15, 30) : null;
      state.temperature = Math.max(state.temperature, rng.between(18, 28));
      state.dewPoint = state.temperature - rng.between(2, 6);
      break;
    }
    case 'gale': {
      state.windDirection = (rng.between(20, 30) * 10) % 360;
      state.windKt = Math.round(18 + strength * 24 + rng.between(-2, 2));
      state.gustKt = state.windKt + rng.between(10, 20);
      state.weather = rng.chance(0.5) ? ['-RA'] : ['RA'];
      state.visibilityM = rng.between(50, 99) * 100;
      state.clouds = [`BKN${pad3(rng.between(10, 25))}`];
      break;
    }
  }
}

function pad3(n: number): string {
  return String(Math.max(0, Math.round(n))).padStart(3, '0');
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** The observation as a report, with its METAR text (what the verdict quotes and a parser reads back). */
function reportOf(airport: ReferenceAirport, at: number, s: SkyState, qnh: number, runways: Runway[]): WeatherReport {
  const time = new Date(at);
  const calm = s.windKt <= 2;
  const wind = calm
    ? `VRB${pad2(s.windKt)}KT`
    : `${pad3(s.windDirection === 0 ? 360 : s.windDirection)}${pad2(s.windKt)}${s.gustKt !== null ? `G${pad2(s.gustKt)}` : ''}KT`;
  const visibility = s.visibilityM >= 10_000 ? '9999' : String(s.visibilityM).padStart(4, '0');
  const rvr =
    s.rvrM !== null && runways[0]
      ? [`R${runways[0].ident.split('/')[0]}/${String(Math.min(s.rvrM, 1500)).padStart(4, '0')}`]
      : [];
  const temperature = (t: number) => (t < 0 ? `M${pad2(-t)}` : pad2(t));
  const raw = [
    airport.icao,
    `${pad2(time.getUTCDate())}${pad2(time.getUTCHours())}${pad2(time.getUTCMinutes())}Z`,
    wind,
    visibility,
    ...rvr,
    ...s.weather,
    ...s.clouds,
    `${temperature(s.temperature)}/${temperature(Math.min(s.dewPoint, s.temperature))}`,
    `Q${qnh}`,
  ].join(' ');
  const ceilings = s.clouds
    .map((c) => /^(?:BKN|OVC|VV)(\d{3})/.exec(c))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]) * 100);
  return {
    station: airport.icao,
    at,
    raw,
    wind: {
      direction: calm ? null : s.windDirection === 0 ? 360 : s.windDirection,
      speedKt: s.windKt,
      gustKt: s.gustKt,
    },
    visibilityM: s.visibilityM,
    rvrM: rvr.length > 0 ? Math.min(s.rvrM!, 1500) : null,
    ceilingFt: ceilings.length > 0 ? Math.min(...ceilings) : null,
    // The simulated sky always gives its vertical visibility a height (VV000 and up), never VV///.
    ceilingUnknown: false,
    cumulonimbus: s.clouds.some((c) => c.endsWith('CB')),
    weather: s.weather,
  };
}
