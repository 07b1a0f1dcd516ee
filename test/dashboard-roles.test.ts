// The dashboard's role check cannot be side-stepped by how a URL is written: every dashboard route,
// under every spelling of its path (letters percent-encoded once or twice, upper-case escapes, mixed
// case, doubled and trailing slashes, dot segments, a semicolon), for every role. What a request
// reaches is what the router matches, so the expectation is taken from a router built the way the
// service's is (find-my-way, Fastify's defaults): a spelling that reaches a route of a section the role
// may not use answers 403 before its handler runs; one that reaches no route is the 404 page; and a
// role is never refused a section it may use. Which role opens which section is written out below,
// independently of src/dashboard/roles.ts.
import { Agent, request } from 'node:http';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/databases.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { PASSWORD, Visitor } from './helpers/dashboard.js';

type Role = 'owner' | 'developer' | 'billing';

/** The sections of the dashboard (first segment after /dashboard) and who opens them (docs/dashboard.md, "Your team"). */
const SECTIONS: Record<string, readonly Role[]> = {
  keys: ['owner', 'developer'],
  webhooks: ['owner', 'developer'],
  lookup: ['owner', 'developer'],
  evidence: ['owner', 'developer'],
  batches: ['owner', 'developer'],
  watches: ['owner', 'developer'],
  billing: ['owner', 'billing'],
  team: ['owner'],
};
const EVERY_ROLE = [
  '',
  'account',
  'assets',
  'sign-in',
  'sign-up',
  'sign-out',
  'invite',
  'forgot-password',
  'reset-password',
  'verify-email',
  'unsubscribe',
  'confirm-billing-email',
];

const allowed = (route: string, role: Role): boolean => {
  const section = route.slice('/dashboard/'.length).split('/')[0] ?? '';
  if (EVERY_ROLE.includes(section)) return true;
  const roles = SECTIONS[section];
  if (!roles) throw new Error(`${route} is in no section this test knows: add it above`);
  return roles.includes(role);
};

/** The routes the running service has under /dashboard, with their methods, read from Fastify's own table. */
function dashboardRoutes(t: TestApp): { method: string; path: string }[] {
  const tree = t.app.http.printRoutes({ commonPrefix: false });
  const routes: { method: string; path: string }[] = [];
  const stack: { depth: number; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)(?:├── |└── )(\S*)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length;
    while (stack.length > 0 && stack.at(-1)!.depth >= depth) stack.pop();
    const path = (stack.at(-1)?.path ?? '') + match[2]!;
    stack.push({ depth, path });
    if (!match[3] || !path.startsWith('/dashboard')) continue;
    for (const method of match[3].split(', ')) routes.push({ method, path });
  }
  return routes;
}

/** A concrete path for a route: each parameter gets a value of a plausible shape. */
const concrete = (route: string) =>
  route.replace(/:(\w+)/g, (_m, name: string) =>
    name === 'name' ? 'dashboard.css' : name === 'action' ? 'disable' : `${name}_x1`,
  );

const encode = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** The ways a client may write `path` (the first spelling is the path itself). */
function spellings(path: string): string[] {
  const [, section = '', rest = ''] = /^\/dashboard\/?([^/]*)(.*)$/.exec(path) ?? [];
  const at = (s: string) => `/dashboard/${s}${rest}`;
  const out = new Set<string>([path]);
  if (section !== '') {
    out.add(at(encode(section[0]!) + section.slice(1))); // %6beys
    out.add(at(encode(section[0]!).toUpperCase() + section.slice(1))); // %6Beys
    out.add(at([...section].map(encode).join(''))); // every letter
    out.add(at(section.slice(0, -1) + encode(section.at(-1)!))); // the last letter
    out.add(at(`%25${encode(section[0]!).slice(1)}${section.slice(1)}`)); // encoded twice: %256beys
    out.add(at(section[0]!.toUpperCase() + section.slice(1))); // Keys
    out.add(at(section.toUpperCase())); // KEYS
    out.add(`/dashboard//${section}${rest}`);
    out.add(`/dashboard/./${section}${rest}`);
    out.add(`/dashboard/%2e/${section}${rest}`);
    out.add(`/dashboard/billing/../${section}${rest}`);
    out.add(`/dashboard/account/..%2f${section}${rest}`);
    out.add(`/dashboard/${section}%2f${rest.slice(1)}`);
    out.add(`/dashboard/${section};x${rest}`);
  }
  out.add(`/d${encode('a')}shboard${path.slice('/dashboard'.length)}`);
  out.add(`/DASHBOARD${path.slice('/dashboard'.length)}`);
  out.add(`//${path.slice(1)}`);
  out.add(`${path}/`);
  out.add(`${path}?x=1`);
  return [...out];
}

describeEachDatabase('dashboard roles under every spelling of a path', (kind) => {
  let t: TestApp;
  const people = {} as Record<Role, Visitor>;

  beforeAll(async () => {
    t = await startTestApp(kind, { pollIntervalMs: 365 * 86_400_000 });
    people.owner = new Visitor(t);
    await people.owner.signUp('owner@roles.example', 'Roles Co');
    // Mail is off: the Team page shows each invitation's link to pass on.
    for (const role of ['developer', 'billing'] as const) {
      await people.owner.get('/dashboard/team');
      const invited = await people.owner.post('/dashboard/team/invite', { email: `${role}@roles.example`, role });
      const link = /id="invite-link">https?:\/\/[^/]+(\/dashboard\/invite\/[\w-]{43})</.exec(invited.body)?.[1];
      expect(link, invited.body.slice(0, 300)).toBeDefined();
      const person = new Visitor(t);
      await person.get(link!);
      expect((await person.post(link!, { email: `${role}@roles.example`, password: PASSWORD })).statusCode).toBe(303);
      await person.get('/dashboard'); // the form token of the signed-in session
      people[role] = person;
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  // Over a real socket, the path exactly as written: inject would resolve its dot segments first.
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  afterAll(() => agent.destroy());
  const send = async (person: Visitor, method: string, path: string, form?: Record<string, string>) => {
    if (!t.app.http.server.listening) await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.http.server.address() as { port: number };
    const body = form ? new URLSearchParams({ _csrf: person.csrf, ...form }).toString() : undefined;
    const cookie = [...person.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers: Record<string, string> = {
      cookie,
      ...(body === undefined
        ? {}
        : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) }),
    };
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const sent = request({ host: '127.0.0.1', port, method, path, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            text: Buffer.concat(chunks)
              .toString('utf8')
              .replace(/<[^>]+>/g, ' ')
              .replace(/\s+/g, ' '),
          }),
        );
        response.on('error', reject);
      });
      sent.on('error', reject);
      sent.end(body);
    });
  };

  it('reads every dashboard route, and every route is in a section', () => {
    const routes = dashboardRoutes(t);
    expect(routes.length).toBeGreaterThan(60);
    for (const path of [
      '/dashboard/keys',
      '/dashboard/team/invite',
      '/dashboard/billing/invoices/:id',
      '/dashboard/webhooks/:id/rotate',
    ]) {
      expect(routes.map((r) => r.path)).toContain(path);
    }
    for (const { path } of routes) expect(() => allowed(path, 'owner')).not.toThrow();
  });

  it('refuses each role every route of a section it may not use, however the path is written', async () => {
    const routes = dashboardRoutes(t);
    // The oracle: which route a spelling reaches, decided as the service's router decides it.
    const router = FindMyWay({ maxParamLength: 200 });
    for (const { method, path } of routes) router.on(method as HTTPMethod, path, () => {}, { route: path });
    let refused = 0;
    let sideStepsTried = 0;
    for (const { method, path } of routes) {
      for (const spelled of spellings(concrete(path))) {
        const reached = (
          router.find(method as HTTPMethod, spelled.split('?')[0]!)?.store as { route?: string } | undefined
        )?.route;
        for (const role of ['developer', 'billing', 'owner'] as const) {
          // A role that may use the route asks by GET and HEAD only: its forms would change what the next spelling meets.
          if (reached && allowed(reached, role) && method === 'POST') continue;
          const person = people[role];
          const answer = await send(
            person,
            method,
            spelled,
            method === 'POST' ? { name: 'probe', email: 'probe@roles.example', role: 'owner' } : undefined,
          );
          const where = `${role} ${method} ${spelled} (reaches ${reached ?? 'no route'})`;
          if (!reached) {
            // The dashboard's 404 page, or the API's when the spelling leaves /dashboard altogether.
            expect(answer.status, where).toBe(404);
          } else if (!allowed(reached, role)) {
            refused += 1;
            if (spelled !== concrete(path)) sideStepsTried += 1;
            expect(answer.status, where).toBe(403);
            if (method !== 'HEAD') expect(answer.text, where).toContain(`As ${role} on this account you do not see`);
          } else if (method !== 'HEAD') {
            expect(answer.text, where).not.toContain('Not for your role');
          }
        }
      }
    }
    // The attack of the report is among them: encoded letters reach the keys and team pages.
    expect(router.find('POST', '/dashboard/%6beys')).not.toBeNull();
    expect(router.find('POST', '/dashboard/%74eam/invite')).not.toBeNull();
    expect(refused).toBeGreaterThan(300);
    expect(sideStepsTried).toBeGreaterThan(200);
  }, 240_000);

  it('creates no key and no member for a role refused, under the spellings of the report', async () => {
    const before = await t.app.db.kysely
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const keys = await people.billing.post('/dashboard/%6beys', { name: 'sneaky' });
    expect(keys.statusCode).toBe(403);
    expect(keys.body).not.toMatch(/id="new-key"/);
    const invite = await people.developer.post('/dashboard/%74eam/invite', {
      email: 'boss@elsewhere.example',
      role: 'owner',
    });
    expect(invite.statusCode).toBe(403);
    const after = await t.app.db.kysely
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const invites = await t.app.db.kysely
      .selectFrom('invites')
      .select('email')
      .where('email', '=', 'boss@elsewhere.example')
      .execute();
    expect(invites).toEqual([]);
  });
});
