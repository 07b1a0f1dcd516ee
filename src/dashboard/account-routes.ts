// The account a user runs without the operator (docs/dashboard.md, "Your account"): a forgotten
// password reset by a link sent by mail, the address proven by a link, the password changed, and
// every session signed out. Mail is queued without waiting (docs/mail.md); with mail off the pages
// say that a reset is not possible here.
import type { FastifyInstance } from 'fastify';
import type { Notices } from '../mail/index.js';
import { emailProblem, normaliseEmail, passwordProblem, type UsersService } from '../users/index.js';
import { formOf } from './forms.js';
import { html, type Html } from '../html.js';
import { csrfInput, field, notice } from './layout.js';
import type { PageContext } from './context.js';
import { clearSession, csrfToken, sessionToken } from './session.js';

const narrow = (body: Html) => html`<div class="narrow">${body}</div>`;

export function accountPages(scope: FastifyInstance, users: UsersService, notices: Notices, ctx: PageContext): void {
  const { recovery } = users;
  const mailOff = notice(
    'info',
    'This service sends no email, so a password cannot be reset here: ask the operator of this service to set a new one.',
  );

  const forgotPage = (csrf: string, o: { email?: string; error?: string; done?: boolean } = {}) =>
    narrow(html`<h1>Reset your password</h1>
      ${!notices.enabled ? mailOff : ''}
      ${o.done ? notice('ok', 'If an account uses this email, a link to set a new password is on its way. It works once, for an hour.') : ''}
      <form method="post" action="/dashboard/forgot-password" novalidate>
        ${csrfInput(csrf)}
        ${field({ name: 'email', label: 'Email', type: 'email', value: o.email ?? '', error: o.error, autocomplete: 'username', hint: 'The email you sign in with.' })}
        <p><button type="submit"${notices.enabled ? '' : html` disabled`}>Send me a link</button></p>
      </form>
      <p><a href="/dashboard/sign-in">Back to sign-in</a></p>`);

  scope.get('/forgot-password', (request, reply) =>
    ctx.render(request, reply, 'Reset your password', forgotPage(csrfToken(request, reply))),
  );

  scope.post('/forgot-password', async (request, reply) => {
    const form = formOf(request);
    const email = normaliseEmail(form.email ?? '');
    const problem = emailProblem(email);
    if (problem)
      return ctx.render(
        request,
        reply,
        'Reset your password',
        forgotPage(csrfToken(request, reply), { email: form.email, error: problem }),
        { status: 400 },
      );
    if (!notices.enabled)
      return ctx.render(
        request,
        reply,
        'Reset your password',
        forgotPage(csrfToken(request, reply), { email: form.email }),
        { status: 503 },
      );
    const asked = await recovery.requestReset(email, request.ip);
    if (asked.kind === 'throttled') {
      reply.header('retry-after', String(asked.retryAfterSeconds));
      return ctx.render(
        request,
        reply,
        'Reset your password',
        forgotPage(csrfToken(request, reply), { email: form.email, error: asked.message }),
        { status: 429 },
      );
    }
    // Queued without waiting: a known and an unknown email take the same time and get the same page.
    if (asked.kind === 'ok' && asked.value) void notices.passwordReset(asked.value);
    return ctx.render(request, reply, 'Reset your password', forgotPage(csrfToken(request, reply), { done: true }));
  });

  const resetPage = (csrf: string, token: string, error?: string) =>
    narrow(html`<h1>Set a new password</h1>
      <form method="post" action="/dashboard/reset-password/${token}" novalidate>
        ${csrfInput(csrf)}
        ${field({ name: 'password', label: 'New password', type: 'password', error, autocomplete: 'new-password', hint: 'At least 10 characters. Setting it signs you out everywhere.' })}
        <p><button type="submit">Set the new password</button></p>
      </form>`);
  const deadLink = narrow(
    html`<h1>This link does not work</h1><p>Reset links work once, for an hour. <a href="/dashboard/forgot-password">Ask for a new one</a>.</p>`,
  );

  scope.get<{ Params: { token: string } }>('/reset-password/:token', async (request, reply) => {
    if (!(await recovery.resetOpen(request.params.token)))
      return ctx.render(request, reply, 'Reset your password', deadLink, { status: 404 });
    return ctx.render(request, reply, 'Set a new password', resetPage(csrfToken(request, reply), request.params.token));
  });

  scope.post<{ Params: { token: string } }>('/reset-password/:token', async (request, reply) => {
    const result = await recovery.resetPassword(request.params.token, formOf(request).password ?? '', passwordProblem);
    if (result.kind === 'ok') {
      clearSession(reply);
      return reply.redirect('/dashboard/sign-in?reset=1', 303);
    }
    if (result.kind === 'invalid' && result.field === 'password') {
      return ctx.render(
        request,
        reply,
        'Set a new password',
        resetPage(csrfToken(request, reply), request.params.token, result.message),
        { status: 400 },
      );
    }
    return ctx.render(request, reply, 'Reset your password', deadLink, { status: 404 });
  });

  scope.get<{ Params: { token: string } }>('/verify-email/:token', async (request, reply) => {
    const email = await recovery.verify(request.params.token);
    if (!email)
      return ctx.render(
        request,
        reply,
        'Confirm your email',
        narrow(
          html`<h1>This link does not work</h1><p>It was used already or is more than a week old. Sign in and ask for a new one on your account page.</p>`,
        ),
        { status: 404 },
      );
    return ctx.render(
      request,
      reply,
      'Email confirmed',
      narrow(html`<h1>Email confirmed</h1><p>${email} is confirmed. <a href="/dashboard">Go to the dashboard</a>.</p>`),
    );
  });

  // ---- the signed-in user's own account ----
  const accountPage = async (
    request: Parameters<PageContext['signedIn']>[0],
    reply: Parameters<PageContext['signedIn']>[1],
    o: { errors?: { current?: string; password?: string }; done?: Html; status?: number } = {},
  ) => {
    const user = request.user!;
    const verified = await recovery.verified(user.id);
    const csrf = csrfToken(request, reply);
    return ctx.render(
      request,
      reply,
      'Your account',
      html`<h1>Your account</h1>
        ${o.done ?? ''}
        <h2>Email</h2>
        <p>${user.email} · ${verified ? 'confirmed' : 'not confirmed yet'}</p>
        ${
          verified
            ? ''
            : notices.enabled
              ? html`<form method="post" action="/dashboard/account/verify">${csrfInput(csrf)}<button class="secondary" type="submit">Send the confirmation link again</button></form>`
              : html`<p class="hint">This service sends no email, so the address cannot be confirmed here.</p>`
        }
        <h2>Password</h2>
        <form method="post" action="/dashboard/account/password" novalidate>
          ${csrfInput(csrf)}
          ${field({ name: 'current', label: 'Current password', type: 'password', error: o.errors?.current, autocomplete: 'current-password' })}
          ${field({ name: 'password', label: 'New password', type: 'password', error: o.errors?.password, autocomplete: 'new-password', hint: 'At least 10 characters. Your other sessions are signed out.' })}
          <p><button type="submit">Change password</button></p>
        </form>
        ${user.role === 'owner' ? html`<h2>Team</h2><p><a href="/dashboard/team">Invite colleagues and choose what each may do</a>.</p>` : html`<p class="hint">Your role on this account: ${user.role}.</p>`}
        <h2>Sessions</h2>
        <form method="post" action="/dashboard/account/sign-out-everywhere">
          ${csrfInput(csrf)}
          <p class="hint">Signs out every browser signed in as you, this one included.</p>
          <button class="danger" type="submit">Sign out everywhere</button>
        </form>`,
      { status: o.status },
    );
  };

  scope.get<{ Querystring: { changed?: string; sent?: string } }>(
    '/account',
    { preHandler: ctx.signedIn },
    (request, reply) =>
      accountPage(request, reply, {
        done:
          request.query.changed === '1'
            ? notice('ok', 'Your password was changed; your other sessions were signed out.')
            : request.query.sent === '1'
              ? notice('ok', 'A new confirmation link is on its way.')
              : undefined,
      }),
  );

  scope.post('/account/password', { preHandler: ctx.signedIn }, async (request, reply) => {
    const form = formOf(request);
    const result = await recovery.changePassword(
      request.user!.id,
      form.current ?? '',
      form.password ?? '',
      sessionToken(request),
      passwordProblem,
    );
    if (result.kind === 'ok') return reply.redirect('/dashboard/account?changed=1', 303);
    const errors =
      result.kind === 'invalid' ? { [result.field === 'current' ? 'current' : 'password']: result.message } : {};
    return accountPage(request, reply, { errors, status: 400 });
  });

  scope.post('/account/verify', { preHandler: ctx.signedIn }, async (request, reply) => {
    const link = await recovery.requestVerification(request.user!.id);
    if (link) void notices.verifyEmail(link);
    return reply.redirect('/dashboard/account?sent=1', 303);
  });

  scope.post('/account/sign-out-everywhere', { preHandler: ctx.signedIn }, async (request, reply) => {
    await recovery.signOutEverywhere(request.user!.id);
    clearSession(reply);
    return reply.redirect('/dashboard/sign-in', 303);
  });
}
