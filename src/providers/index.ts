export type * from './types.js';
export { bounded, pause } from './call.js';
export { CALL_KINDS } from './types.js';
export { AeroDataBoxProvider, AERODATABOX_URL } from './aerodatabox.js';
export { AeroApiProvider, AEROAPI_URL } from './aeroapi.js';
export { AviationstackProvider, AVIATIONSTACK_URL } from './aviationstack.js';
export { OpenSkyProvider, OPENSKY_URL, OPENSKY_AUTH_URL } from './opensky.js';
export { ProviderStats, type StatsSnapshot } from './stats.js';
