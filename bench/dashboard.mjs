// The dashboard's pages (docs/dashboard.md): server time to render each one for a signed-in user,
// as latency p50/p99 and throughput as a ratio to GET /api/health in the same round, and the bytes
// each page loads (HTML + CSS + JS, gzipped as the service sends them; target ≤ 100 KB, nothing from
// another host). A real service on SQLite on loopback, an account made through the sign-up form with
// a key, 30 metered lookups over the last days, and an endpoint with a test delivery.
// `node bench/run.mjs dashboard` writes "## Dashboard" in docs/performance.md.
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import { writeSection } from './sections.mjs';
import { loadTest, serviceCli, startServer } from './server.mjs';
import { sqliteTarget } from './targets.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const TARGET_KB = 100;

export async function runDashboardBench() {
  const section = renderDashboard(await measureDashboard());
  writeSection('## Dashboard', section);
  process.stdout.write(`${section}\n`);
}

/** A browser's cookie jar and CSRF token over fetch. */
function visitor(base) {
  const cookies = new Map();
  let csrf = '';
  const keep = async (response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair.split('=');
      cookies.set(name, value);
    }
    const body = await response.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? csrf;
    return { status: response.status, location: response.headers.get('location'), body };
  };
  const cookie = () => [...cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  return {
    cookie,
    get: async (path) => keep(await fetch(base + path, { headers: { cookie: cookie() }, redirect: 'manual' })),
    post: async (path, fields) => {
      const body = new URLSearchParams({ _csrf: csrf });
      for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
      return keep(
        await fetch(base + path, {
          method: 'POST',
          headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
          body,
          redirect: 'manual',
        }),
      );
    },
  };
}

export async function measureDashboard() {
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const target = sqliteTarget();
  const env = {
    ...process.env,
    DATABASE_URL: target.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
    FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
  };
  const server = await startServer(env);
  try {
    const v = visitor(server.url);
    await v.get('/dashboard/sign-up');
    const signedUp = await v.post('/dashboard/sign-up', {
      accountName: 'Bench Claims',
      email: 'bench@example.com',
      password: 'bench password 123',
    });
    if (signedUp.status !== 303) throw new Error(`sign-up answered ${signedUp.status}`);
    await v.get('/dashboard/keys');
    const key = /id="new-key">([^<]+)</.exec((await v.post('/dashboard/keys', { name: 'bench' })).body)[1];
    const date = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    for (let i = 0; i < 30; i++)
      await fetch(`${server.url}/api/v1/flights/status?flightNumber=RO${300 + i}&flightDate=${date}`, {
        headers: { authorization: `Bearer ${key}` },
      });
    await v.get('/dashboard/webhooks');
    const created = await v.post('/dashboard/webhooks', {
      name: 'bench hook',
      url: `http://127.0.0.1:${receiver.address().port}/`,
      airports: ['OTP', 'KIV'],
    });
    if (created.status !== 303)
      throw new Error(
        `adding the endpoint answered ${created.status}: ${(/class="error"[^>]*>([^<]+)/.exec(created.body) ?? [])[1]}`,
      );
    const endpoint = created.location;
    await v.get(endpoint);
    await v.post(`${endpoint.split('?')[0]}/test`, {});
    const cli = serviceCli(env);
    const delayed = cli('sim', 'flights', '--date', date, '--status', 'delayed', '--operation', 'passenger').flights[0];
    const lookup = await v.post('/dashboard/lookup', {
      flightNumber: delayed.flightNumber,
      flightDate: date,
      origin: delayed.origin,
      destination: '',
    });
    if (!lookup.body.includes('<img class="proof"')) throw new Error('the lookup answer has no proof image');

    const pages = [
      { name: 'health', label: '`GET /api/health` (baseline)', path: '/api/health', cookie: false },
      { name: 'sign-in', label: 'Sign in', path: '/dashboard/sign-in', cookie: false },
      { name: 'overview', label: 'Overview (credits + 30-day chart)', path: '/dashboard', cookie: true },
      { name: 'keys', label: 'API keys', path: '/dashboard/keys', cookie: true },
      { name: 'webhooks', label: 'Webhooks (list + the 52-airport form)', path: '/dashboard/webhooks', cookie: true },
      { name: 'endpoint', label: 'One endpoint (secret, deliveries)', path: endpoint.split('?')[0], cookie: true },
      { name: 'lookup', label: 'Look up a flight (the form)', path: '/dashboard/lookup', cookie: true },
    ];
    const assets = await Promise.all(
      ['dashboard.css', 'dashboard.js'].map(async (name) =>
        Buffer.from(await (await fetch(`${server.url}/dashboard/assets/${name}`)).arrayBuffer()),
      ),
    );
    const assetBytes = assets.reduce((sum, a) => sum + gzipSync(a).length, 0);
    const sizes = {};
    for (const page of pages.slice(1)) {
      const body = page.cookie ? (await v.get(page.path)).body : await (await fetch(server.url + page.path)).text();
      sizes[page.name] = { html: gzipSync(body).length, external: externalRefs(body, server.url) };
    }
    sizes['lookup-result'] = { html: gzipSync(lookup.body).length, external: externalRefs(lookup.body, server.url) };

    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const measured = {};
      const order = round % 2 === 0 ? pages : [...pages].reverse();
      for (const page of order) {
        const headers = page.cookie ? { cookie: v.cookie() } : {};
        await loadTest({ url: server.url + page.path, connections: CONNECTIONS, duration: WARMUP, headers });
        const r = await loadTest({
          url: server.url + page.path,
          connections: CONNECTIONS,
          duration: DURATION,
          headers,
        });
        measured[page.name] = {
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          unexpected: r.non2xx + r.errors + r.timeouts,
        };
        console.error(
          `round ${round + 1} ${page.name.padEnd(10)} ${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} ms p99 ${r.latency.p99} ms non-2xx ${r.non2xx}`,
        );
      }
      rounds.push(measured);
    }
    return { pages, rounds, sizes, assetBytes };
  } finally {
    await server.stop();
    await target.drop();
    receiver.close();
  }
}

/** src/href values that leave this service. */
function externalRefs(html, base) {
  return [...html.matchAll(/\s(?:src|href|action)="([^"]+)"/g)]
    .map((m) => m[1])
    .filter((url) => /^(https?:)?\/\//.test(url) && !url.startsWith(base)).length;
}

export function renderDashboard({ pages, rounds, sizes, assetBytes }) {
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const kb = (bytes) => (bytes / 1024).toFixed(1);
  const rows = pages.map((page) => {
    const rps = median(rounds.map((r) => r[page.name].rps));
    const ratio = median(rounds.map((r) => r[page.name].rps / r.health.rps));
    const p50 = median(rounds.map((r) => r[page.name].p50));
    const p99 = median(rounds.map((r) => r[page.name].p99));
    const size = sizes[page.name];
    const bytes = size ? `${kb(size.html)} + ${kb(assetBytes)} = ${kb(size.html + assetBytes)}` : '—';
    return `| ${page.label} | ${Math.round(rps).toLocaleString('en-US')} | ${ratio.toFixed(2)} | ${p50} | ${p99} | ${bytes} | ${size ? size.external : '—'} |`;
  });
  const result = sizes['lookup-result'];
  const [largestName, largestSize] = Object.entries(sizes).sort((a, b) => b[1].html - a[1].html)[0];
  const largest = largestSize.html + assetBytes;
  const external = Object.values(sizes).reduce((sum, s) => sum + s.external, 0);
  return [
    '## Dashboard',
    '',
    `Written by \`node bench/run.mjs dashboard\` (bench/dashboard.mjs) on ${new Date().toISOString().slice(0, 10)}. Each page as a signed-in user sees it ` +
      `(an account made through the sign-up form, a key, 30 metered lookups, an endpoint with a test delivery), from a real service on SQLite on loopback; ` +
      `autocannon with ${CONNECTIONS} connections, ${WARMUP} s warm-up, ${DURATION} s measured, ${ROUNDS} rounds with the order swapped; medians over rounds. ` +
      "Bytes: the page's HTML gzipped + the stylesheet and script gzipped (each page loads both, once; nothing else).",
    '',
    '| page | pages/s | ratio to health | p50 ms | p99 ms | KB gzipped (HTML + CSS/JS = total) | references to other hosts |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    `| Look up a flight, with its answer and proof image (POST) | — | — | — | — | ${kb(result.html)} + ${kb(assetBytes)} = ${kb(result.html + assetBytes)} | ${result.external} |`,
    '',
    `Target: at most ${TARGET_KB} KB per page, no request to another host — ${largest / 1024 <= TARGET_KB && external === 0 ? 'met' : '**not met**'} ` +
      `(largest ${kb(largest)} KB: ${largestName === 'lookup-result' ? 'the lookup answer, whose proof PNG is inline as base64 and barely compresses' : `the ${largestName} page`}).`,
  ].join('\n');
}
