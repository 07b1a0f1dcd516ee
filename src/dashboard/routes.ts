// The dashboard (docs/dashboard.md): server-rendered pages at /dashboard, on the same services as the
// API. Each handler reads a form, calls one service with the signed-in user's account, and renders a
// page or redirects (POST → 303 → GET). Scoped to /dashboard: its form parser, HTML errors and
// cookie handling touch no API route.
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DAY } from '../clock.js';
import type { HttpServer } from '../http/server.js';
import { webhookPages } from './webhooks-routes.js';
import { mailPages } from './mail-routes.js';
import { accountPages } from './account-routes.js';
import { teamPages } from './team-routes.js';
import { areaOfRoute, forbiddenArea, type Area } from './roles.js';
import { lookupPages } from './lookup-routes.js';
import { billingPages } from './billing-routes.js';
import { batchPages } from './batches-routes.js';
import { watchPages } from './watches-routes.js';
import { ASSETS } from './assets.js';
import { signInPages } from './auth-routes.js';
import { keyPages } from './keys-routes.js';
import { html } from '../html.js';
import { page } from './layout.js';
import { dayBars, overviewPage, CHART_DAYS } from './overview-page.js';
import { clearSession, csrfHeader, csrfToken, csrfValid, PATH, safeNext, sessionToken } from './session.js';
import type { DashboardDeps, PageContext, Render } from './context.js';
import { formOf, parseForm } from './forms.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The section of a dashboard route (roles.ts), set when it is registered; null: every role's. */
    area?: Area | null;
  }
}

/** Largest form accepted (a webhook form with a few hundred airports is well under this). */
const FORM_LIMIT = 32 * 1024;
/** Routes the hooks below single out, as declared (matched, not as the URL was written). */
const ASSETS_ROUTE = `${PATH}/assets/:name`;
const UNSUBSCRIBE_ROUTE = `${PATH}/unsubscribe/:token`;

export async function dashboardRoutes(http: HttpServer, deps: DashboardDeps): Promise<void> {
  http.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/dashboard', 302));
  await http.register(async (scope) => dashboard(scope as unknown as FastifyInstance, deps), { prefix: PATH });
}

async function dashboard(scope: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const { users, accounts } = deps;
  await scope.register(cookie);
  scope.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
    // Each route's section, from the path it declares (a page in no section does not start).
    route.config = { ...route.config, area: areaOfRoute(route.url) };
  });
  // Pages take forms, nothing else (a JSON body is the API's).
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (_request, body, done) => {
      done(null, parseForm(body as string));
    },
  );
  scope.decorateRequest('user', null);

  scope.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    reply.header(
      'content-security-policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    );
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'same-origin');
    if (request.routeOptions.url === ASSETS_ROUTE) return;
    const token = sessionToken(request);
    request.user = token ? await users.session(token) : null;
    // What the user's role does not open answers 403: decided on the route that matched, whatever
    // spelling of the URL reached it (roles.ts). An unmatched URL has no section and meets the 404.
    const forbidden = request.user ? forbiddenArea(request.routeOptions.config.area, request.user.role) : null;
    if (forbidden) {
      return reply
        .code(403)
        .type('text/html; charset=utf-8')
        .send(
          page(
            {
              title: 'Not for your role',
              user: request.user,
              accountName: (await account(request)).name,
              csrf: csrfToken(request, reply),
            },
            html`<h1>Not for your role</h1><p>As ${request.user!.role} on this account you do not see ${forbidden}. An owner of the account can change your role. <a href="/dashboard">Back to the dashboard</a>.</p>`,
          ),
        );
    }
  });
  // Every form is checked before its handler runs; a stale or forged one changes nothing.
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    // A mail client's one-click unsubscribe (RFC 8058) has no page and no token but the link's.
    if (request.routeOptions.url === UNSUBSCRIBE_ROUTE && formOf(request)['List-Unsubscribe'] === 'One-Click') return;
    if (!csrfValid(request, formOf(request)._csrf ?? csrfHeader(request))) {
      // A form sent after its session ended: sign in again, then back to the page it came from.
      if (!request.user && sessionToken(request) !== null) return signInAgain(request, reply);
      return reply
        .code(403)
        .type('text/html; charset=utf-8')
        .send(
          page(
            { title: 'Form expired', user: request.user, csrf: csrfToken(request, reply) },
            html`<h1>This form has expired</h1><p>It was sent from a page that is too old, or from another site. Go back, reload the page and send it again.</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
          ),
        );
    }
  });

  scope.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'dashboard page failed');
    const message =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? `The form is larger than ${FORM_LIMIT / 1024} KB.`
        : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'The form was sent in a format this page does not read.'
          : status === 500
            ? `Something went wrong on our side (request ${request.id}). Reload the page to see what was saved, then try again.`
            : 'The request could not be read.';
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(
        page(
          { title: 'Error', user: request.user, csrf: csrfToken(request, reply) },
          html`<h1>${status === 500 ? 'Something went wrong' : 'That did not work'}</h1><p>${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
        ),
      );
  });
  scope.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .type('text/html; charset=utf-8')
      .send(
        page(
          { title: 'Not found', user: request.user, csrf: csrfToken(request, reply) },
          html`<h1>Page not found</h1><p>There is nothing at this address. <a href="/dashboard">Go to the dashboard</a>.</p>`,
        ),
      ),
  );

  scope.get<{ Params: { name: string } }>(ASSETS_ROUTE.slice(PATH.length), (request, reply) => {
    const asset = ASSETS[request.params.name];
    if (!asset) return reply.callNotFound();
    reply.header('cache-control', 'public, max-age=86400').header('etag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });

  // ---- every page, in the frame; signing in and out is in auth-routes.ts ----
  const render: Render = (request, reply, title, body, o = {}) =>
    reply
      .code(o.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(
        page(
          {
            title,
            user: request.user,
            accountName: o.accountName,
            section: o.section,
            scripts: o.scripts,
            csrf: csrfToken(request, reply),
          },
          body,
        ),
      );

  // ---- pages of a signed-in user: anyone else goes to sign-in, and comes back after ----
  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.user) return;
    return signInAgain(request, reply);
  };
  const account = async (request: FastifyRequest) => {
    const described = await accounts.describe(request.user!.accountId);
    if (described.kind !== 'ok') throw new Error(`the account of user ${request.user!.id} is missing`);
    return described.value;
  };

  scope.get('/', { preHandler: signedIn }, async (request, reply) => {
    const view = await account(request);
    const now = deps.clock.now();
    const firstDay = Math.floor(now / DAY) * DAY - (CHART_DAYS - 1) * DAY;
    const usage = await deps.metering.usageByDay(view.id, firstDay, firstDay + CHART_DAYS * DAY);
    // This process's refusals of the last seconds first; other processes' follow within their flush.
    await deps.refusals.flush();
    const refused = await deps.metering.refusalsByDay(view.id, firstDay, firstDay + CHART_DAYS * DAY);
    const plan = view.subscription.planId ? ((await deps.plans.summary(view.subscription.planId)) ?? null) : null;
    return render(request, reply, 'Overview', overviewPage(view, dayBars(usage, refused, firstDay), { plan }), {
      section: 'overview',
      accountName: view.name,
    });
  });

  const pages: PageContext = {
    render,
    signedIn,
    account,
    accountName: async (request) => (await account(request)).name,
  };
  signInPages(scope, deps, pages);
  keyPages(scope, deps, pages);
  webhookPages(scope, deps, pages);
  mailPages(scope, deps.mail, pages);
  accountPages(scope, users, deps.notices, pages);
  teamPages(scope, users, deps.notices, pages);
  lookupPages(scope, deps, pages);
  billingPages(scope, deps, pages);
  batchPages(scope, deps, pages);
  watchPages(scope, deps, pages);
}

/** To sign-in, coming back afterwards to this page (a GET) or to the page a form was sent from. */
function signInAgain(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const back = request.method === 'GET' ? request.url : refererPath(request);
  const expired = sessionToken(request) !== null;
  if (expired) clearSession(reply);
  return reply.redirect(
    `/dashboard/sign-in?next=${encodeURIComponent(safeNext(back))}${expired ? '&expired=1' : ''}`,
    303,
  );
}

function refererPath(request: FastifyRequest): string {
  const referer = request.headers.referer;
  if (!referer) return '/dashboard';
  try {
    const url = new URL(referer);
    // Compared as URLs, so that "localhost:80" and "localhost" are the same host.
    return url.host === new URL(`${request.protocol}://${request.host}`).host
      ? url.pathname + url.search
      : '/dashboard';
  } catch {
    return '/dashboard';
  }
}
