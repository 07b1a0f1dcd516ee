// GET /metrics: the process's metrics in Prometheus' text format, behind the operator token (Bearer
// FLIGHTSTATUS_ADMIN_TOKEN; Prometheus sends it with `authorization: {credentials_file: …}`), on the
// service's own port. Why not a separate unauthenticated port: one port per process is what the
// reverse proxy, the firewall and the health checks already know, and an open metrics port leaks
// route names, account activity and provider errors the moment it is exposed by mistake. Without
// an operator token, like the operator API, it does not exist (404).
import type { HttpServer } from '../http/server.js';
import type { Metrics } from '../metrics/index.js';
import { adminScope, common } from './routes.js';

export function metricsRoutes(app: HttpServer, deps: { adminToken: string; metrics: Metrics }): void {
  const { metrics } = deps;
  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/metrics',
      { schema: { ...common, summary: 'Prometheus metrics' }, compress: false },
      async (_request, reply) => {
        const text = await metrics.text();
        return reply.type(metrics.contentType).send(text);
      },
    );
  });
}
