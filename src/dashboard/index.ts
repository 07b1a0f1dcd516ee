// The customer dashboard: pages served at /dashboard (docs/dashboard.md).
export { dashboardRoutes } from './routes.js';
export type { DashboardDeps } from './context.js';
