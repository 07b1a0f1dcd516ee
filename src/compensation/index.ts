export { assess, carrierOf, findAirport, type Assessment, type AssessmentInput, type Band, type Outcome } from './assess.js';
export { compensationRoutes, parseCompensationQuery } from './routes.js';
export { AssessmentSchema } from './schema.js';
