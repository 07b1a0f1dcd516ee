// The airport catalogue (docs/airports.md): the 52 airports whose boards are watched, the only codes a
// webhook endpoint may select. Facts come from src/airports/catalogue.json, generated from reference
// data by scripts/generate-airports.mjs.
import catalogueData from './catalogue.json' with { type: 'json' };

export interface Airport {
  iata: string;
  icao: string;
  name: string;
  city: string;
  country: string;
  countryCode: string;
  timezone: string;
  latitude: number;
  longitude: number;
  boards: ('departures' | 'arrivals')[];
  aliases: string[];
}

export class AirportCatalogue {
  private readonly byCode = new Map<string, Airport>();

  constructor(readonly airports: readonly Airport[]) {
    for (const airport of airports) {
      for (const code of [airport.iata, ...airport.aliases]) {
        if (this.byCode.has(code)) throw new Error(`airport code ${code} appears twice in the catalogue`);
        this.byCode.set(code, airport);
      }
    }
  }

  /** The airport a primary code or an alias names (case-insensitive), if it is in the catalogue. */
  find(code: string): Airport | undefined {
    return this.byCode.get(code.trim().toUpperCase());
  }
}

export function loadCatalogue(): AirportCatalogue {
  return new AirportCatalogue(catalogueData as Airport[]);
}
