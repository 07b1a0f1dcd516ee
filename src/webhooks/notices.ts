// What the account is told by mail about its endpoints (src/mail): disabled after consecutive failed
// deliveries, with the last errors, and enabled again after that. The facts come from this
// capability's own tables; the wording and the sending are the mail capability's.
import type { Database } from '../db/index.js';
import type { DisabledEndpointFacts, EndpointFacts } from '../mail/index.js';
import { DISABLED_BY_FAILURES } from './queue.js';

export interface EndpointNotices {
  endpointDisabled(facts: DisabledEndpointFacts): Promise<void>;
  endpointEnabled(facts: EndpointFacts): Promise<void>;
}

/** Tells the account that the delivery worker disabled the endpoint, with its last failed attempts. */
export async function reportDisabled(
  db: Database,
  notices: EndpointNotices,
  endpointId: string,
  at: number,
): Promise<void> {
  const endpoint = await db.kysely
    .selectFrom('endpoints')
    .select(['account_id', 'name', 'url', 'disabled_reason'])
    .where('id', '=', endpointId)
    .executeTakeFirst();
  if (!endpoint) return;
  const lastErrors = await db.kysely
    .selectFrom('delivery_attempts as a')
    .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
    .select(['a.at', 'a.status', 'a.error'])
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('a.at', 'desc')
    .limit(5)
    .execute();
  await notices.endpointDisabled({
    accountId: endpoint.account_id,
    endpointId,
    name: endpoint.name,
    url: endpoint.url,
    at,
    reason: endpoint.disabled_reason ?? DISABLED_BY_FAILURES,
    lastErrors: lastErrors.map((e) => ({ at: Number(e.at), status: e.status, error: e.error })),
  });
}

/** Whether enabling an endpoint is news to tell: it had been disabled by failures, not by the account. */
export const disabledByFailures = (reason: string | null): boolean => reason === DISABLED_BY_FAILURES;
