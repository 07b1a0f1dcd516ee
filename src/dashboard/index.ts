// The customer dashboard: pages served at /dashboard (docs/dashboard.md).
export { dashboardRoutes, type DashboardDeps } from './routes.js';
