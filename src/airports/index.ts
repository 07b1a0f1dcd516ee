// Airports: the catalogue whose boards can be watched (GET /api/v1/airports) and the ~3,200
// reference airports with their zones, positions and regions (docs/airports.md).
export { AirportCatalogue, loadCatalogue, type Airport } from './catalogue.js';
export { airportRoutes } from './routes.js';
export { ReferenceAirports, loadReferenceAirports, distanceKm, type ReferenceAirport } from './reference.js';
