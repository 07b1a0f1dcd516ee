// What each role of an account's people may open (docs/dashboard.md, "Your team"). One table for the
// navigation and the pages: a section a role cannot use is not in its menu, and its pages answer 403.
import type { Role } from '../users/index.js';

const AREAS: { prefix: string; roles: readonly Role[]; what: string }[] = [
  { prefix: '/dashboard/keys', roles: ['owner', 'developer'], what: 'API keys' },
  { prefix: '/dashboard/webhooks', roles: ['owner', 'developer'], what: 'webhooks' },
  { prefix: '/dashboard/lookup', roles: ['owner', 'developer'], what: 'flight lookups' },
  { prefix: '/dashboard/evidence', roles: ['owner', 'developer'], what: 'evidence PDFs' },
  { prefix: '/dashboard/batches', roles: ['owner', 'developer'], what: 'batches' },
  { prefix: '/dashboard/billing', roles: ['owner', 'billing'], what: 'billing' },
  { prefix: '/dashboard/team', roles: ['owner'], what: 'the team' },
];

/** The area a path is in that the role may not use, or null. */
export function forbiddenArea(path: string, role: Role): string | null {
  const area = AREAS.find((a) => path === a.prefix || path.startsWith(`${a.prefix}/`) || path.startsWith(`${a.prefix}?`));
  return area && !area.roles.includes(role) ? area.what : null;
}

/** Whether a role sees a section's link. */
export const mayOpen = (href: string, role: Role): boolean => forbiddenArea(href, role) === null;
