// Who is signed in, and proof that a form came from our own page.
// - The session cookie holds a random token; the database holds its SHA-256 (users capability), so a
//   tampered or stolen-from-backup value leads nowhere. HttpOnly (no script reads it), SameSite=Lax
//   (not sent with another site's POST), Secure (a browser sends it over HTTPS, and to localhost).
// - CSRF: every form carries a token derived from a secret only our pages and the browser's cookie
//   share: the session token once signed in, else a random pre-session cookie (sign-in and sign-up
//   forms are protected too, against login CSRF). A POST whose token does not match is refused.
import { createHash, randomBytes } from 'node:crypto';
import { secretsEqual } from '../auth/index.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedInUser } from '../users/index.js';
import { SESSION_MS } from '../users/index.js';

export const SESSION_COOKIE = 'fs_session';
export const CSRF_COOKIE = 'fs_csrf';
export const PATH = '/dashboard';

const cookieOptions = (maxAgeSeconds: number) => ({
  path: PATH,
  httpOnly: true,
  secure: true,
  sameSite: 'lax' as const,
  maxAge: maxAgeSeconds,
});

export function sessionToken(request: FastifyRequest): string | null {
  return request.cookies[SESSION_COOKIE] ?? null;
}

export function setSession(reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(SESSION_MS / 1000));
}

export function clearSession(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: PATH });
}

/** The secret a form's token is derived from, creating the pre-session cookie when there is none. */
function csrfSecret(request: FastifyRequest, reply: FastifyReply | null): string | null {
  const session = request.user ? sessionToken(request) : null;
  if (session) return `s:${session}`;
  let anonymous = request.cookies[CSRF_COOKIE];
  if (!anonymous || !/^[A-Za-z0-9_-]{32}$/.test(anonymous)) {
    if (!reply) return null;
    anonymous = randomBytes(24).toString('base64url');
    reply.setCookie(CSRF_COOKIE, anonymous, { ...cookieOptions(SESSION_MS / 1000), sameSite: 'strict' });
    request.cookies[CSRF_COOKIE] = anonymous;
  }
  return `a:${anonymous}`;
}

const derive = (secret: string) =>
  createHash('sha256').update(`flightstatus-dashboard-csrf:${secret}`).digest('base64url');

/** The token the page's forms carry. */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return derive(csrfSecret(request, reply)!);
}

/** Whether a posted form's `_csrf` matches this browser's secret (constant time). */
export function csrfValid(request: FastifyRequest, posted: string | undefined): boolean {
  const secret = csrfSecret(request, null);
  return secret !== null && typeof posted === 'string' && secretsEqual(posted, derive(secret));
}

/**
 * The token a page's script sends with a body that is not a form (the batch upload, CSV as text):
 * the `x-csrf-token` header. Another site cannot set a header on a cross-site request without CORS,
 * which the service does not grant, and the token is checked exactly as a form's.
 */
export function csrfHeader(request: FastifyRequest): string | undefined {
  const value = request.headers['x-csrf-token'];
  return typeof value === 'string' ? value : undefined;
}

/** Where to go after signing in: only a dashboard path on this host, never an open redirect. */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || value.length > 500) return PATH;
  return /^\/dashboard(?:[/?][^\\\s]*)?$/.test(value) && !value.includes('//') ? value : PATH;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: SignedInUser | null;
  }
}
