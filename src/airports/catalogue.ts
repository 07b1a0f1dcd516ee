// The airport catalogue (docs/airports.md): the airports whose boards are watched, the only codes a
// webhook endpoint may select. The specification's 52 come from src/airports/catalogue.json,
// generated from reference data by scripts/generate-airports.mjs; the operator may add more
// (additions.ts), which this object holds beside them once read from the database.
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
  private readonly builtIn = new Map<string, Airport>();
  private byCode = new Map<string, Airport>();
  private list: readonly Airport[];
  private added: readonly Airport[] = [];
  /** Reads the operator's additions again (additions.ts sets it); absent: the specification's 52 only. */
  private reread?: () => Promise<void>;

  constructor(airports: readonly Airport[]) {
    for (const airport of airports) {
      for (const code of [airport.iata, ...airport.aliases]) {
        if (this.builtIn.has(code)) throw new Error(`airport code ${code} appears twice in the catalogue`);
        this.builtIn.set(code, airport);
      }
    }
    this.byCode = this.builtIn;
    this.list = [...airports].sort((a, b) => a.iata.localeCompare(b.iata));
  }

  /** Every airport, the specification's and the operator's, sorted by IATA code. */
  get airports(): readonly Airport[] {
    return this.list;
  }

  /** The airport a primary code or an alias names (case-insensitive), if it is in the catalogue. */
  find(code: string): Airport | undefined {
    return this.byCode.get(code.trim().toUpperCase());
  }

  /** Whether a code (or alias) names one of the specification's airports, which the operator cannot remove. */
  isBuiltIn(code: string): boolean {
    return this.builtIn.has(code.trim().toUpperCase());
  }

  /** Where the operator's additions are read again from (additions.ts). */
  rereadWith(reread: () => Promise<void>): void {
    this.reread = reread;
  }

  /** Reads the additions again when one of `codes` is unknown here: another process may have just added it. */
  async knowAll(codes: readonly unknown[]): Promise<void> {
    if (this.reread && codes.some((code) => typeof code === 'string' && !this.find(code))) await this.reread();
  }

  /** The operator's additions, as last read: replaces those held before (an addition never shadows a built-in code). */
  setAdded(airports: readonly Airport[]): void {
    const byCode = new Map(this.builtIn);
    const kept = airports.filter((a) => !byCode.has(a.iata));
    for (const airport of kept) byCode.set(airport.iata, airport);
    this.added = kept;
    this.byCode = byCode;
    this.list = [...new Set(this.builtIn.values()), ...kept].sort((a, b) => a.iata.localeCompare(b.iata));
  }

  /** The operator's additions, as last read. */
  get additions(): readonly Airport[] {
    return this.added;
  }
}

/** The specification's 52 airports (no additions: additions.ts reads those). */
export function loadCatalogue(): AirportCatalogue {
  return new AirportCatalogue(catalogueData as Airport[]);
}
