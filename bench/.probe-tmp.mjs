// scratch: CPU split between the service, PostgreSQL and the load generator for one scenario
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import autocannon from 'autocannon';
import { startServer } from './server.mjs';
import { postgresTarget } from './targets.mjs';
const MAIN = new URL('../dist/main.js', import.meta.url).pathname;
const target = await postgresTarget();
const env = { ...process.env, DATABASE_URL: target.url, PORT: '0', LOG_LEVEL: 'warn', FLIGHTSTATUS_ADMIN_TOKEN: '' , FLIGHTSTATUS_WEBHOOK_SECRET_KEY: 'be'.repeat(32)};
const cli = (...a) => JSON.parse(execFileSync(process.execPath, [MAIN, ...a], { env, cwd: tmpdir() }).toString()).data;
cli('accounts', 'create', '--slug', 'bench', '--included', '1000000000');
const { key } = cli('keys', 'create', '--account', 'bench', '--name', 'bench');
if (process.env.SQL) { const pg = (await import('pg')).default; const c = new pg.Client({ connectionString: target.url.replace('//127', '//root@127') }); await c.connect(); await c.query(process.env.SQL); await c.end(); }
const server = await startServer(env);
const ticks = () => {
  const out = {};
  for (const line of execFileSync('ps', ['-eo', 'pid,comm,time,args', '--no-headers']).toString().split('\n')) {
    const m = /^\s*(\d+)\s+(\S+)\s+(\d+):(\d+):(\d+)\s+(.*)$/.exec(line); if (!m) continue;
    const secs = +m[3] * 3600 + +m[4] * 60 + +m[5];
    const kind = +m[1] === server.pid ? 'service' : m[2] === 'postgres' ? 'postgres' : +m[1] === process.pid ? 'bench' : null;
    if (kind) out[kind] = (out[kind] ?? 0) + secs;
  }
  return out;
};
const stat = () => readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
for (const path of (process.env.PATHS ?? '/api/health').split(',')) {
  const opts = { url: server.url + path, connections: 50, headers: { authorization: `Bearer ${key}` } };
  await new Promise((r) => autocannon({ ...opts, duration: 2 }, r));
  const c0 = process.cpuUsage(); const t0 = ticks(); const s0 = stat();
  const res = await new Promise((r, j) => autocannon({ ...opts, duration: Number(process.env.D ?? 8) }, (e, x) => (e ? j(e) : r(x))));
  const t1 = ticks(); const s1 = stat(); const c1 = process.cpuUsage(c0);
  const total = s1.reduce((a, b) => a + b, 0) - s0.reduce((a, b) => a + b, 0); const idle = s1[3] - s0[3];
  console.log(path.slice(0, 60), Math.round(res.requests.average), 'req/s', 'service cpu s', t1.service - t0.service, 'postgres cpu s', (t1.postgres ?? 0) - (t0.postgres ?? 0), 'bench cpu s', ((c1.user + c1.system) / 1e6).toFixed(1), 'machine idle %', Math.round((100 * idle) / total));
}
{ const pg = (await import('pg')).default; const c = new pg.Client({ connectionString: target.url.replace('//127', '//root@127') }); await c.connect();
  const r = await c.query("select relname, seq_scan, seq_tup_read, idx_scan, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_dead_tup, n_live_tup, last_autoanalyze, last_autovacuum from pg_stat_user_tables where relname in ('usage_log','credit_windows','api_keys','accounts')");
  console.table(r.rows); await c.end(); }
await server.stop(); await target.drop();
