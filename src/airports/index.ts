export { AirportCatalogue, loadCatalogue, type Airport } from './catalogue.js';
export { airportRoutes } from './routes.js';
