// Airports: the catalogue whose boards can be watched (GET /api/v1/airports; the specification's 52
// and those the operator adds) and the ~3,200 reference airports with their zones, positions and
// regions (docs/airports.md).
export { AirportCatalogue, loadCatalogue, type Airport } from './catalogue.js';
export { AirportAdditions, type AddAirport, type CatalogueEntry } from './additions.js';
export { airportsCapability } from './capability.js';
export { AirportEntry } from './routes.js';
export { ReferenceAirports, loadReferenceAirports, distanceKm, type ReferenceAirport } from './reference.js';
