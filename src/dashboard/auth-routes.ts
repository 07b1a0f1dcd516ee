// Signing up and in (docs/dashboard.md, "Signing up and in"): the sign-in and sign-up forms, an
// invitation accepted with a new sign-in, and signing out. Open to visitors; a session is set on
// success and the user sent on to the page asked for (POST → 303 → GET).
import type { FastifyInstance } from 'fastify';
import { normaliseEmail } from '../users/index.js';
import { closedPage, invalidInvitePage, signedUpNotice, signInPage, signUpPage, type Errors } from './auth-pages.js';
import { notice } from './layout.js';
import { landingPage } from './roles.js';
import { clearSession, csrfToken, safeNext, sessionToken, setSession } from './session.js';
import type { DashboardDeps, PageContext } from './context.js';
import { formOf } from './forms.js';

export function signInPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const { users } = deps;
  const { render } = ctx;

  scope.get<{ Querystring: { next?: string; expired?: string; 'signed-up'?: string; reset?: string } }>(
    '/sign-in',
    (request, reply) => {
      if (request.user) return reply.redirect(safeNext(request.query.next), 303);
      const csrf = csrfToken(request, reply);
      const shown =
        request.query.expired === '1'
          ? notice('info', 'Your session has ended. Sign in again to continue.')
          : request.query['signed-up'] === '1'
            ? signedUpNotice()
            : request.query.reset === '1'
              ? notice('ok', 'Your password was changed and every session signed out: sign in with the new one.')
              : undefined;
      return render(
        request,
        reply,
        'Sign in',
        signInPage({ csrf, next: safeNext(request.query.next), signupOpen: users.signupOpen, notice: shown }),
      );
    },
  );

  scope.post('/sign-in', async (request, reply) => {
    const form = formOf(request);
    const next = safeNext(form.next);
    const result = await users.signIn({ email: form.email ?? '', password: form.password ?? '', address: request.ip });
    if (result.kind === 'ok') {
      setSession(reply, result.value.session);
      return reply.redirect(next, 303);
    }
    const status = result.kind === 'throttled' ? 429 : 401;
    if (result.kind === 'throttled') reply.header('retry-after', String(result.retryAfterSeconds));
    const errors: Errors = { [result.field]: result.message };
    return render(
      request,
      reply,
      'Sign in',
      signInPage({ csrf: csrfToken(request, reply), next, email: form.email, errors, signupOpen: users.signupOpen }),
      { status },
    );
  });

  scope.get('/sign-up', (request, reply) => {
    if (request.user) return reply.redirect('/dashboard', 303);
    if (!users.signupOpen) return render(request, reply, 'Sign-up closed', closedPage(), { status: 403 });
    return render(request, reply, 'Create an account', signUpPage({ csrf: csrfToken(request, reply) }));
  });

  // A new email and one that already has an account get the same answer (users.signUp): a 303 to
  // sign-in with the same notice, and no session; so the form tells nobody which emails have accounts.
  scope.post('/sign-up', async (request, reply) => {
    const form = formOf(request);
    const result = await users.signUp({
      email: form.email ?? '',
      password: form.password ?? '',
      accountName: form.accountName ?? '',
      address: request.ip,
    });
    if (result.kind === 'ok') {
      // The link that proves the address, queued without waiting (a taken email gets the same answer, no mail).
      if (result.value.created && deps.notices.enabled) {
        void users.recovery
          .requestVerificationFor(normaliseEmail(form.email ?? ''))
          .then((link) => link && deps.notices.verifyEmail(link))
          .catch((error: unknown) => request.log.warn({ err: error }, 'confirmation link not sent'));
      }
      return reply.redirect(
        `/dashboard/sign-in?signed-up=1&next=${encodeURIComponent('/dashboard/keys?welcome=1')}`,
        303,
      );
    }
    if (result.kind === 'closed') return render(request, reply, 'Sign-up closed', closedPage(), { status: 403 });
    if (result.kind === 'throttled') reply.header('retry-after', String(result.retryAfterSeconds));
    return render(
      request,
      reply,
      'Create an account',
      signUpPage({
        csrf: csrfToken(request, reply),
        email: form.email,
        accountName: form.accountName,
        errors: { [result.field]: result.message },
      }),
      {
        status: result.kind === 'throttled' ? 429 : result.kind === 'conflict' ? 409 : 400,
      },
    );
  });

  scope.get<{ Params: { token: string } }>('/invite/:token', async (request, reply) => {
    const invitation = await users.invitation(request.params.token);
    if (!invitation) return render(request, reply, 'Invitation', invalidInvitePage(), { status: 404 });
    return render(
      request,
      reply,
      'Accept your invitation',
      signUpPage({
        csrf: csrfToken(request, reply),
        invite: request.params.token,
        email: invitation.email ?? undefined,
      }),
    );
  });

  scope.post<{ Params: { token: string } }>('/invite/:token', async (request, reply) => {
    const form = formOf(request);
    const result = await users.acceptInvite(request.params.token, {
      email: form.email ?? '',
      password: form.password ?? '',
    });
    if (result.kind === 'ok') {
      setSession(reply, result.value.session);
      return reply.redirect(landingPage(result.value.user.role), 303);
    }
    return render(
      request,
      reply,
      'Accept your invitation',
      signUpPage({
        csrf: csrfToken(request, reply),
        invite: request.params.token,
        email: form.email,
        errors: { [result.field]: result.message },
      }),
      {
        status: result.kind === 'conflict' ? 409 : 400,
      },
    );
  });

  scope.post('/sign-out', async (request, reply) => {
    const token = sessionToken(request);
    if (token) await users.signOut(token);
    clearSession(reply);
    return reply.redirect('/dashboard/sign-in', 303);
  });
}
