// The service's own front door: the HTTP front every capability's routes sit in (front.ts), the
// health and readiness probes, the OpenAPI document and its page at /docs (routes.ts).
export { buildFront, type FrontSetup } from './front.js';
