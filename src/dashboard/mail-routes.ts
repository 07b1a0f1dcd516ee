// The unsubscribe link of a notice mail (src/mail): GET shows what it stops and a button (a link
// scanner that follows the link stops nothing); POST stops it. Mail clients' one-click unsubscribe
// (RFC 8058) POSTs `List-Unsubscribe=One-Click` to the same address with no page and no CSRF token:
// the link's token is the credential, and all it can do is stop notices.
import type { FastifyInstance } from 'fastify';
import type { MailService } from '../mail/index.js';
import { formOf } from './forms.js';
import { csrfToken } from './session.js';
import { html } from '../html.js';
import type { PageContext } from './context.js';

/** The address shown on the page, half hidden: the link may have been forwarded. */
function masked(address: string): string {
  const [local = '', domain = ''] = address.split('@');
  return `${local.slice(0, 2)}${'*'.repeat(Math.max(1, local.length - 2))}@${domain}`;
}

export function mailPages(scope: FastifyInstance, mail: MailService, ctx: PageContext): void {
  const gone = html`<h1>This link does not work</h1><p>The unsubscribe link is not known here, or is more than a year old. Sign in to the dashboard and contact us to stop notices.</p>`;

  scope.get<{ Params: { token: string } }>('/unsubscribe/:token', async (request, reply) => {
    const { token } = request.params;
    const target = await mail.unsubscribeTarget(token);
    if (!target) return ctx.render(request, reply, 'Unsubscribe', gone, { status: 404 });
    return ctx.render(
      request,
      reply,
      'Unsubscribe',
      html`<h1>Stop notices by email?</h1>
<p>Notices about your usage and your webhook endpoints will no longer be sent to ${masked(target.recipient)}. Invoices, receipts, payment problems and account security mails still are.</p>
<form method="post" action="/dashboard/unsubscribe/${token}">
  <input type="hidden" name="_csrf" value="${csrfToken(request, reply)}">
  <button type="submit">Stop notices</button>
</form>`,
    );
  });

  scope.post<{ Params: { token: string } }>('/unsubscribe/:token', async (request, reply) => {
    const done = await mail.unsubscribe(request.params.token);
    if (formOf(request)['List-Unsubscribe'] === 'One-Click')
      return reply
        .code(done ? 200 : 404)
        .type('text/plain; charset=utf-8')
        .send(done ? 'Unsubscribed' : 'Unknown link');
    if (!done) return ctx.render(request, reply, 'Unsubscribe', gone, { status: 404 });
    return ctx.render(
      request,
      reply,
      'Unsubscribed',
      html`<h1>Notices stopped</h1><p>No more notices about usage and webhook endpoints will be sent to this address.</p>`,
    );
  });
}
