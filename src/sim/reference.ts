// The facts the simulated world is built from, vendored as JSON under src/sim/data/ (reviewed by
// hand; sources in docs/simulation.md): airlines with their real codes, callsigns, fleets and hubs;
// aircraft types with seats, speeds and minimum turnarounds; national registration marks and ICAO
// 24-bit address blocks; and each catalogue airport's traffic: departures a day and carrier mix.
import airlinesData from './data/airlines.json' with { type: 'json' };
import typesData from './data/aircraft-types.json' with { type: 'json' };
import registrationData from './data/registration-countries.json' with { type: 'json' };
import trafficData from './data/airport-traffic.json' with { type: 'json' };
import type { Operation } from '../providers/types.js';

export type AirlineModel = 'lowcost' | 'legacy' | 'regional' | 'leisure' | 'cargo' | 'military' | 'private';

export interface Airline {
  iata: string | null;
  icao: string;
  name: string;
  callsign: string;
  country: string;
  model: AirlineModel;
  hubs: string[];
  fleet: { type: string; share: number }[];
  registrationCountry: string;
  alphanumericCallsigns: boolean;
  flightNumberRange: [number, number];
  codeshares: string[];
  /** The group carrier whose designators this operator flies under (Buzz and Malta Air fly FR numbers). */
  marketingCarrier?: string;
  /** Stopped flying from this date. */
  inactiveSince?: string;
}

export type AircraftCategory =
  'narrowbody' | 'widebody' | 'regional' | 'turboprop' | 'freighter' | 'bizjet' | 'military';

export interface AircraftType {
  icao: string;
  iata: string | null;
  label: string;
  category: AircraftCategory;
  seats: number;
  cruiseKts: number;
  rangeKm: number;
  minTurnaroundMin: number;
}

export interface RegistrationCountry {
  prefix: string;
  letters?: number;
  format?: string;
  icao24: [string, string];
}

export interface AirportTraffic {
  departuresPerDay: number;
  /** For an airport closed today: its traffic before the closure. */
  departuresPerDayBeforeClosure?: number;
  airlines: { iata?: string; icao?: string; share: number; based: boolean }[];
  closed: { from: string; reason: string } | null;
}

export interface SimReference {
  airlines: Map<string, Airline>;
  types: Map<string, AircraftType>;
  registrations: Map<string, RegistrationCountry>;
  traffic: Map<string, AirportTraffic>;
}

export function operationOf(airline: Airline): Operation {
  switch (airline.model) {
    case 'cargo':
      return 'cargo';
    case 'military':
      return 'military';
    case 'private':
      return 'private';
    default:
      return 'passenger';
  }
}

/** Airlines by IATA code where they have one, and always by ICAO code. */
export function loadSimReference(): SimReference {
  const airlines = new Map<string, Airline>();
  for (const airline of airlinesData as unknown as Airline[]) {
    airlines.set(airline.icao, airline);
    if (airline.iata) airlines.set(airline.iata, airline);
  }
  const types = new Map((typesData as unknown as AircraftType[]).map((t) => [t.icao, t]));
  const registrations = new Map(Object.entries(registrationData as unknown as Record<string, RegistrationCountry>));
  const traffic = new Map(Object.entries(trafficData as unknown as Record<string, AirportTraffic>));
  return { airlines, types, registrations, traffic };
}
