// What each role of an account's people may open (docs/dashboard.md, "Your team"). One table for the
// navigation and the pages: a section a role cannot use is not in its menu, and its pages answer 403.
//
// Access is decided on the route that matched, never on the URL as written: each dashboard route is
// given its section when it is registered (from its declared path, `/dashboard/keys/:id/:action` →
// keys), and a request is checked against the section of the route the router chose. The router
// decodes `/dashboard/%6beys` to the keys page; the URL text does not say so, the route does.
import type { Role } from '../users/index.js';

export type Area = 'keys' | 'webhooks' | 'lookup' | 'evidence' | 'batches' | 'watches' | 'billing' | 'team';

const AREAS: Record<Area, { roles: readonly Role[]; what: string }> = {
  keys: { roles: ['owner', 'developer'], what: 'API keys' },
  webhooks: { roles: ['owner', 'developer'], what: 'webhooks' },
  lookup: { roles: ['owner', 'developer'], what: 'flight lookups' },
  evidence: { roles: ['owner', 'developer'], what: 'evidence PDFs' },
  batches: { roles: ['owner', 'developer'], what: 'batches' },
  watches: { roles: ['owner', 'developer'], what: 'watches' },
  billing: { roles: ['owner', 'billing'], what: 'billing' },
  team: { roles: ['owner'], what: 'the team' },
};

/**
 * First path segments (after /dashboard) of the pages every role opens, or a visitor: the overview,
 * one's own account, signing in and out, the one-time links (the billing email's confirmation too: an
 * accountant may have no sign-in), the unsubscribe link and the assets.
 */
const OPEN = new Set([
  '',
  'account',
  'assets',
  'sign-in',
  'sign-up',
  'sign-out',
  'invite',
  'forgot-password',
  'reset-password',
  'verify-email',
  'unsubscribe',
  'confirm-billing-email',
]);

const PREFIX = '/dashboard';

/**
 * The section of a dashboard route, from its declared path (`/dashboard/keys/:id/:action` → 'keys'),
 * or null for a page every role opens. A path in no known section throws: a new page is given its
 * place in this table before it can be served, so none is open to every role by omission.
 */
export function areaOfRoute(path: string): Area | null {
  if (path !== PREFIX && !path.startsWith(`${PREFIX}/`)) throw new Error(`${path} is not a dashboard path`);
  const segment = path.slice(PREFIX.length + 1).split(/[/?]/, 1)[0] ?? '';
  if (Object.hasOwn(AREAS, segment)) return segment as Area;
  if (OPEN.has(segment)) return null;
  throw new Error(`the dashboard route ${path} is in no section of roles.ts: add its section to AREAS or OPEN`);
}

/** What the role may not see of the section (its words), or null when it may. */
export function forbiddenArea(area: Area | null | undefined, role: Role): string | null {
  if (!area) return null;
  const { roles, what } = AREAS[area];
  return roles.includes(role) ? null : what;
}

/** Whether a role sees a section's link. */
export const mayOpen = (href: string, role: Role): boolean => forbiddenArea(areaOfRoute(href), role) === null;

/** Where someone lands on joining an account (an accepted invitation): the first page their role works in. */
export function landingPage(role: Role): string {
  return mayOpen('/dashboard/keys', role) ? '/dashboard/keys?welcome=1' : '/dashboard/billing';
}
