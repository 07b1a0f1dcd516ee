// One departures-board row as the provider interface gives it (W6 3101 OTP–LTN, an A21N, scheduled
// and nothing else known), for the board engine's, the prediction's and the watch matching's unit
// tests: each names only what its case changes.
import type { BoardRow } from '../../src/providers/index.js';

export const boardRowAt = (scheduledAt: number, patch: Partial<BoardRow> = {}): BoardRow => ({
  flightNumber: 'W6 3101',
  flightIata: 'W63101',
  flightIcao: 'WZZ3101',
  callsign: 'WZZ3101',
  direction: 'departure',
  airline: { name: 'Wizz Air', iata: 'W6', icao: 'WZZ' },
  codeshares: [],
  operation: 'passenger',
  aircraftType: 'A21N',
  registration: null,
  origin: { iata: 'OTP', icao: 'LROP' },
  destination: { iata: 'LTN', icao: 'EGGW' },
  divertedTo: null,
  scheduledAt,
  estimatedAt: null,
  actualAt: null,
  status: 'Scheduled',
  cancelled: false,
  diverted: false,
  runway: null,
  ...patch,
});
