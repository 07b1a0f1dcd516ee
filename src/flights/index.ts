export { flightRoutes } from './routes.js';
export { parseFlightQuery, parseFlightDate, QUERY_PARAMETERS, type FlightQuery } from './query.js';
export type { FlightResolver, ResolveContext } from './resolver.js';
export { FlightStatusResponse, type FlightStatusData } from './schema.js';
