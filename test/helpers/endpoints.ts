// A webhook endpoint written straight into its table, for tests whose subject is not the webhook API
// (its checks, its SSRF guard): the board poll reads the airports enabled endpoints select.
import type { TestApp } from './app.js';

export async function insertEndpoint(
  t: TestApp,
  o: { accountId: string; airports: string[]; url: string; enabled?: boolean },
): Promise<string> {
  const id = `wh_test${Math.random().toString(36).slice(2, 10)}`;
  await t.app.db.kysely
    .insertInto('endpoints')
    .values({
      id,
      account_id: o.accountId,
      name: 'test',
      url: o.url,
      airports: JSON.stringify(o.airports),
      enabled: o.enabled === false ? 0 : 1,
      secret: 'whsec_test',
      consecutive_failures: 0,
      created_at: t.clock.now(),
      updated_at: t.clock.now(),
      disabled_at: null,
      disabled_reason: null,
    })
    .execute();
  return id;
}
