// The reference airports: every large or medium airport with scheduled service (about 3,200),
// generated from OurAirports and OpenTravelData by scripts/generate-airports.mjs. They are the far
// ends a flight can have: names, cities, coordinates (great-circle distances) and time zones.
import referenceData from './reference.json' with { type: 'json' };

export interface ReferenceAirport {
  iata: string;
  icao: string;
  name: string;
  city: string;
  countryCode: string;
  /** OurAirports continent code: AF AN AS EU NA OC SA. */
  continent: string;
  latitude: number;
  longitude: number;
  timezone: string;
  size: 'large' | 'medium';
}

type Row = [string, string, string, string, string, string, number, number, string, 'large' | 'medium'];

export class ReferenceAirports {
  readonly all: readonly ReferenceAirport[];
  private readonly byIata = new Map<string, ReferenceAirport>();

  constructor(rows: readonly Row[]) {
    this.all = rows.map(([iata, icao, name, city, countryCode, continent, latitude, longitude, timezone, size]) => ({
      iata,
      icao,
      name,
      city,
      countryCode,
      continent,
      latitude,
      longitude,
      timezone,
      size,
    }));
    for (const airport of this.all) this.byIata.set(airport.iata, airport);
  }

  find(iata: string): ReferenceAirport | undefined {
    return this.byIata.get(iata.trim().toUpperCase());
  }
}

const EARTH_RADIUS_KM = 6371;
const RADIANS = Math.PI / 180;

/** Great-circle distance (haversine, R = 6371 km), as EU261 Art. 7(4) measures it. */
export function distanceKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const dLat = (b.latitude - a.latitude) * RADIANS;
  const dLon = (b.longitude - a.longitude) * RADIANS;
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * RADIANS) * Math.cos(b.latitude * RADIANS) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

let loaded: ReferenceAirports | undefined;

/** The reference airports, parsed once per process (they never change while it runs). */
export function loadReferenceAirports(): ReferenceAirports {
  return (loaded ??= new ReferenceAirports((referenceData as unknown as { rows: Row[] }).rows));
}
