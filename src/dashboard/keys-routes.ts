// The API keys page: thin doors onto AccountsService with the signed-in user's account; each key
// shown with when it was last used (metering), and the one just created in plaintext, once.
import { baseUrl } from '../http/base-url.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../html.js';
import { keyDone, keysPage } from './keys-page.js';
import { notice } from './layout.js';
import { csrfToken } from './session.js';
import type { DashboardDeps, PageContext } from './context.js';
import { formOf } from './forms.js';

export function keyPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const { accounts } = deps;
  const { render, signedIn, account } = ctx;

  const showKeys = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      created?: { name: string; key: string };
      name?: string;
      error?: string | null;
      done?: Html;
      status?: number;
    },
  ) => {
    const view = await account(request);
    const lastUsed = await deps.metering.lastUsedByKey(view.keys.map((k) => k.keyId));
    const keys = view.keys.map((k) => ({
      ...k,
      lastUsedAt: lastUsed.has(k.keyId) ? new Date(lastUsed.get(k.keyId)!).toISOString() : null,
    }));
    const base = baseUrl(request, deps.publicUrl);
    return render(
      request,
      reply,
      'API keys',
      keysPage({ csrf: csrfToken(request, reply), baseUrl: base, keys, ...extra }),
      {
        section: 'keys',
        accountName: view.name,
        status: extra.status,
      },
    );
  };

  scope.get<{ Querystring: { done?: string; welcome?: string } }>(
    '/keys',
    { preHandler: signedIn },
    (request, reply) => {
      const done = {
        enabled: 'Key enabled.',
        disabled: 'Key disabled: requests with it are refused.',
        deleted: 'Key deleted.',
      }[request.query.done ?? ''];
      const welcome =
        request.query.welcome === '1' ? notice('ok', 'Welcome! Create your first API key to call the API.') : undefined;
      return showKeys(request, reply, { done: done ? keyDone(done) : welcome });
    },
  );

  scope.post('/keys', { preHandler: signedIn }, async (request, reply) => {
    const name = formOf(request).name ?? '';
    const created = await accounts.createKey(request.user!.accountId, name);
    if (created.kind !== 'ok') {
      // The service's message says what is wrong with a name of the right length (control characters).
      const error = created.message.startsWith('name must not')
        ? `The key ${created.message}`
        : 'Give the key a name of 1 to 100 characters';
      return showKeys(request, reply, { name, error, status: 400 });
    }
    return showKeys(request, reply, { created: { name: created.value.name, key: created.value.key } });
  });

  scope.post<{ Params: { id: string; action: string } }>(
    '/keys/:id/:action',
    { preHandler: signedIn },
    async (request, reply) => {
      const { id, action } = request.params;
      const accountId = request.user!.accountId;
      let result;
      if (action === 'disable' || action === 'enable')
        result = await accounts.setKeyDisabled(id, action === 'disable', accountId);
      else if (action === 'delete') result = await accounts.deleteKey(accountId, id);
      else return reply.callNotFound();
      if (result.kind !== 'ok') return reply.callNotFound();
      return reply.redirect(`/dashboard/keys?done=${action}d`, 303);
    },
  );
}
