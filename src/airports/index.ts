export { AirportCatalogue, loadCatalogue, type Airport } from './catalogue.js';
export { airportRoutes } from './routes.js';
export { ReferenceAirports, loadReferenceAirports, distanceKm, type ReferenceAirport } from './reference.js';
