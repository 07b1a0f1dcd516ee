// The metering guarantee under a crash: a credit and its usage row are one write, and a response
// leaves only after its row records it, so after kill -9 every acknowledged metered request has its
// row saying what was sent, and credits equal rows exactly.
import { expect, it } from 'vitest';
import { openDatabase } from '../src/db/index.js';
import { createTestDatabase, describeEachDatabase } from './helpers/databases.js';
import { runCli, startService } from './helpers/process.js';

describeEachDatabase('crash safety', (kind) => {
  it('keeps every acknowledged usage row when the process is killed mid-load', async () => {
    const database = await createTestDatabase(kind);
    try {
      const env = { DATABASE_URL: database.url };
      await runCli(['accounts', 'create', '--slug', 'crash', '--included', '1000000'], env);
      const key = JSON.parse((await runCli(['keys', 'create', '--account', 'crash', '--name', 'k'], env)).stdout).data
        .key;
      const service = await startService({ ...env, LOG_LEVEL: 'warn' });

      let acknowledged = 0;
      let stop = false;
      const worker = async () => {
        while (!stop) {
          try {
            const response = await fetch(
              `${service.url}/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-30`,
              {
                headers: { authorization: `Bearer ${key}` },
              },
            );
            await response.arrayBuffer();
            if (response.status === 400) acknowledged++;
          } catch {
            return; // the connection died with the process
          }
        }
      };
      const workers = Array.from({ length: 20 }, worker);
      // Kill once a few hundred requests have been answered, in the middle of the stream.
      while (acknowledged < 300) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await service.stop('SIGKILL')).toBeNull();
      stop = true;
      await Promise.all(workers);

      const db = await openDatabase(database.target);
      const rows = await db.kysely
        .selectFrom('usage_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const answered = await db.kysely
        .selectFrom('usage_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 400)
        .executeTakeFirstOrThrow();
      const credits = await db.kysely
        .selectFrom('credit_windows')
        .select((eb) => eb.fn.sum<number>('used').as('n'))
        .executeTakeFirstOrThrow();
      await db.close();
      expect(Number(answered.n)).toBeGreaterThanOrEqual(acknowledged);
      // Requests in flight at the kill keep their pending row (503: no answer left) with their credit.
      expect(Number(credits.n)).toBe(Number(rows.n));
    } finally {
      await database.drop();
    }
  });
});
