// The account's people (docs/dashboard.md, "Your team"): an owner invites a colleague by email with a
// role, sees the invitations still open and revokes them, and removes people. Roles limit what each
// sees and does (roles.ts): a developer the keys, webhooks, lookups and batches; billing the plan and
// invoices; an owner everything, this page too. Invitations are limited per account (users'
// invitations.ts): a refusal is shown on the form, with 429 and Retry-After.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { iso } from '../clock.js';
import type { Notices } from '../mail/index.js';
import { ROLES, type UsersService } from '../users/index.js';
import { formOf } from './forms.js';
import { html, type Html } from '../html.js';
import { csrfInput, field, notice } from './layout.js';
import type { PageContext } from './context.js';
import { csrfToken } from './session.js';

const ROLE_WORDS: Record<string, string> = {
  owner: 'Owner: everything, the team included',
  developer: 'Developer: API keys, webhooks, lookups and batches',
  billing: 'Billing: the plan and invoices, not the keys',
};

const DONE: Record<string, string> = {
  invited: 'Invitation sent: the link works once, for a week.',
  removed: 'Removed: they were signed out.',
  revoked: 'Invitation revoked: its link no longer works.',
};

const STATUS = { invalid: 400, conflict: 409, closed: 403, throttled: 429 } as const;

const minute = (ms: number) => `${iso(ms).slice(0, 16).replace('T', ' ')} UTC`;

export function teamPages(scope: FastifyInstance, users: UsersService, notices: Notices, ctx: PageContext): void {
  const guarded = { preHandler: ctx.signedIn };

  const teamPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    o: {
      done?: Html;
      error?: string;
      listError?: string;
      email?: string;
      role?: string;
      link?: string;
      status?: number;
    } = {},
  ) => {
    const user = request.user!;
    const [members, pending] = await Promise.all([
      users.members(user.accountId),
      users.invitations.pending(user.accountId),
    ]);
    const csrf = csrfToken(request, reply);
    const body = html`<h1>Your team</h1>
      ${o.done ?? ''}
      ${o.link ? html`<p>Mail is off on this service: send this link to them yourself (it works once, for a week):</p><code class="secret" id="invite-link">${o.link}</code>` : ''}
      ${o.listError ? notice('bad', o.listError) : ''}
      <table>
        <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
        <tbody>${members.map(
          (m) => html`<tr>
            <td>${m.email}${m.id === user.id ? ' (you)' : ''}</td>
            <td>${m.role}</td>
            <td>${new Date(m.joinedAt).toISOString().slice(0, 10)}</td>
            <td>${m.id === user.id ? '' : html`<form method="post" action="/dashboard/team/${m.id}/remove" data-confirm="Remove ${m.email}? They are signed out at once.">${csrfInput(csrf)}<button class="danger" type="submit">Remove ${m.email}</button></form>`}</td>
          </tr>`,
        )}</tbody>
      </table>
      <h2 id="pending-heading">Open invitations</h2>
      ${
        pending.length === 0
          ? html`<p class="hint">None: every invitation was accepted, revoked or has expired.</p>`
          : html`<p class="hint">Each holds a place in the team until it is accepted, revoked or expires.</p>
          <table aria-labelledby="pending-heading">
            <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
            <tbody>${pending.map((i) => {
              const who = i.email ?? 'any address (the operator’s link)';
              return html`<tr>
                <td>${who}</td>
                <td>${i.role}</td>
                <td>${i.invitedBy ?? 'the operator'}</td>
                <td>${minute(i.expiresAt)}</td>
                <td><form method="post" action="/dashboard/team/invitations/${i.ref}/revoke" data-confirm="Revoke the invitation to ${who}? Its link stops working at once.">${csrfInput(csrf)}<button class="danger" type="submit">Revoke the invitation to ${who}</button></form></td>
              </tr>`;
            })}</tbody>
          </table>`
      }
      <h2 id="invite-heading">Invite a colleague</h2>
      ${o.error ? notice('bad', o.error) : ''}
      <form method="post" action="/dashboard/team/invite" novalidate aria-labelledby="invite-heading">
        ${csrfInput(csrf)}
        ${field({ name: 'email', label: 'Their email', type: 'email', value: o.email ?? '', autocomplete: 'off' })}
        <label for="f-role">Role</label>
        <select id="f-role" name="role">${ROLES.map((r) => html`<option value="${r}"${(o.role ?? 'developer') === r ? html` selected` : ''}>${ROLE_WORDS[r]}</option>`)}</select>
        <p><button type="submit">Send the invitation</button></p>
      </form>`;
    return ctx.render(request, reply, 'Your team', body, {
      accountName: await ctx.accountName(request),
      status: o.status,
    });
  };

  scope.get<{ Querystring: { done?: string } }>('/team', guarded, (request, reply) => {
    const done = request.query.done;
    return teamPage(request, reply, {
      done: typeof done === 'string' && Object.hasOwn(DONE, done) ? notice('ok', DONE[done]!) : undefined,
    });
  });

  scope.post('/team/invite', guarded, async (request, reply) => {
    const form = formOf(request);
    const user = request.user!;
    const invited = await users.inviteColleague(
      user.accountId,
      { email: form.email ?? '', role: form.role ?? '' },
      user,
      { byMail: notices.enabled },
    );
    if (invited.kind !== 'ok') {
      if (invited.kind === 'throttled') reply.header('retry-after', String(invited.retryAfterSeconds));
      return teamPage(request, reply, {
        error: invited.message,
        email: form.email,
        role: form.role,
        status: STATUS[invited.kind],
      });
    }
    if (!notices.enabled) {
      const base = `${request.protocol}://${request.host}`;
      return teamPage(request, reply, {
        done: notice('ok', `Invitation made for ${invited.value.email}.`),
        link: `${base}/dashboard/invite/${invited.value.token}`,
      });
    }
    const { email, role, token, expiresAt } = invited.value;
    await notices.invitation({
      accountId: user.accountId,
      accountName: await ctx.accountName(request),
      email,
      role,
      invitedBy: user.email,
      token,
      expiresAt,
    });
    return reply.redirect('/dashboard/team?done=invited', 303);
  });

  scope.post<{ Params: { ref: string } }>('/team/invitations/:ref/revoke', guarded, async (request, reply) => {
    if (!(await users.invitations.revoke(request.user!.accountId, request.params.ref))) {
      return teamPage(request, reply, {
        listError: 'No such open invitation on this account: it was accepted or revoked already, or has expired.',
        status: 404,
      });
    }
    return reply.redirect('/dashboard/team?done=revoked', 303);
  });

  scope.post<{ Params: { id: string } }>('/team/:id/remove', guarded, async (request, reply) => {
    const user = request.user!;
    const removed = await users.removeMember(user.accountId, user.id, request.params.id);
    if (removed.kind !== 'ok') return teamPage(request, reply, { error: removed.message, status: 400 });
    return reply.redirect('/dashboard/team?done=removed', 303);
  });
}
