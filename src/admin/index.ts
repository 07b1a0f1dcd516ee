// The operator API (docs/operator.md): accounts, keys, plans, invoices, mail, providers, the
// clock, the service report, metrics and the simulated world, behind FLIGHTSTATUS_ADMIN_TOKEN.
export { operatorCapability, type OperatorSetup } from './capability.js';
