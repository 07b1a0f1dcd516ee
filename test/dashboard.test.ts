// The dashboard's sign-up, sign-in, sessions, CSRF, keys and overview, through HTTP (inject) on both
// databases: what a browser would send, including the hostile and the stale.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY, MINUTE } from '../src/clock.js';
import { EMAIL_FAILURES, SESSION_MS } from '../src/users/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { PASSWORD, text, Visitor } from './helpers/dashboard.js';
import { groundTruth } from '../src/sim/index.js';

describeEachDatabase('the dashboard', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  const count = async (table: 'users' | 'accounts' | 'sessions' | 'api_keys') =>
    Number(
      (
        await t.app.db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('sends / to the dashboard and a stranger to sign-in, then back to the page asked for', async () => {
    expect((await t.get('/')).headers.location).toBe('/dashboard');
    const v = new Visitor(t);
    const page = await v.get('/dashboard/keys');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fkeys');
    await v.signUp('ana@example.com');
    await v.post('/dashboard/sign-out');
    await v.get('/dashboard/sign-in?next=%2Fdashboard%2Fkeys');
    const signedIn = await v.post('/dashboard/sign-in', {
      email: 'ana@example.com',
      password: PASSWORD,
      next: '/dashboard/keys',
    });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/dashboard/keys');
    // Never an open redirect.
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/dashboard//evil.example',
      '/api/v1/account',
      '/dashboard\\@evil',
    ]) {
      await v.post('/dashboard/sign-out');
      await v.get('/dashboard/sign-in');
      const again = await v.post('/dashboard/sign-in', { email: 'ana@example.com', password: PASSWORD, next });
      expect(again.headers.location, next).toBe('/dashboard');
    }
  });

  it('signs up into a new account on the default plan, then signs in to a session cookie that scripts and other sites cannot use', async () => {
    const v = new Visitor(t);
    await v.get('/dashboard/sign-up');
    const response = await v.post('/dashboard/sign-up', {
      accountName: 'Acme Claims',
      email: ' Ana@Example.com ',
      password: PASSWORD,
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/dashboard/sign-in?signed-up=1&next=%2Fdashboard%2Fkeys%3Fwelcome%3D1');
    expect(response.headers['set-cookie']).toBeUndefined();
    const signInPage = await v.get(response.headers.location!);
    expect(text(signInPage)).toContain('If this email is new here, its account is ready');
    const signedIn = await v.post('/dashboard/sign-in', {
      email: 'ana@example.com',
      password: PASSWORD,
      next: '/dashboard/keys?welcome=1',
    });
    expect(signedIn.headers.location).toBe('/dashboard/keys?welcome=1');
    const cookie = String(signedIn.headers['set-cookie']);
    expect(cookie).toMatch(/^fs_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/dashboard/);
    const overview = await v.get('/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(text(overview)).toContain('Acme Claims');
    expect(text(overview)).toContain('ana@example.com');
    expect(text(overview)).toMatch(/Included 1,000 Used 0 Remaining 1,000/);
    // The password is stored as scrypt, the session as a hash of its token.
    const user = await t.app.db.kysely.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    expect(user.email).toBe('ana@example.com');
    expect(user.password_hash).toMatch(/^\$scrypt\$ln=\d+,r=8,p=1\$/);
    expect(user.password_hash).not.toContain(PASSWORD);
    const session = await t.app.db.kysely.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
    expect(session.id).toMatch(/^[0-9a-f]{64}$/);
    expect(v.cookies.get('fs_session')).not.toBe(session.id);
  });

  it('shows each sign-up error next to its field and keeps what was typed, never the password', async () => {
    const v = new Visitor(t);
    await v.get('/dashboard/sign-up');
    const bad = await v.post('/dashboard/sign-up', {
      accountName: 'Acme <b>Claims</b>',
      email: 'not-an-email',
      password: 'sekret-typed',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="f-email-error"');
    expect(bad.body).toMatch(/aria-invalid="true" aria-describedby="f-email-error"/);
    expect(bad.body).toContain('value="not-an-email"');
    expect(bad.body).toContain('value="Acme &lt;b&gt;Claims&lt;/b&gt;"');
    expect(bad.body).not.toContain('sekret-typed');
    const short = await v.post('/dashboard/sign-up', {
      accountName: 'Acme',
      email: 'ana@example.com',
      password: 'short',
    });
    expect(short.body).toContain('id="f-password-error"');
    await v.signUp('ana@example.com');
    const other = new Visitor(t);
    await other.get('/dashboard/sign-up');
    // A taken email is answered as a new one is (test/dashboard-hostile.test.ts), creating nothing.
    const taken = await other.post('/dashboard/sign-up', {
      accountName: 'Other',
      email: 'ANA@example.com',
      password: PASSWORD,
    });
    expect(taken.statusCode).toBe(303);
    expect(await count('users')).toBe(1);
    expect(await count('accounts')).toBe(1);
  });

  it('refuses a form without the page’s CSRF token, changing nothing', async () => {
    const v = new Visitor(t);
    await v.get('/dashboard/sign-up');
    const forged = await v.post('/dashboard/sign-up', {
      accountName: 'X',
      email: 'x@example.com',
      password: PASSWORD,
      _csrf: 'forged',
    });
    expect(forged.statusCode).toBe(403);
    expect(text(forged)).toContain('This form has expired');
    const stranger = new Visitor(t); // no cookie at all
    expect(
      (
        await stranger.post('/dashboard/sign-up', {
          accountName: 'X',
          email: 'x@example.com',
          password: PASSWORD,
          _csrf: v.csrf,
        })
      ).statusCode,
    ).toBe(403);
    expect(await count('users')).toBe(0);

    await v.signUp('ana@example.com');
    await v.get('/dashboard/keys');
    const signedInToken = v.csrf;
    expect((await v.post('/dashboard/keys', { name: 'k', _csrf: '' })).statusCode).toBe(403);
    // A token from before sign-in does not work after it: it is bound to the session.
    const before = new Visitor(t);
    await before.get('/dashboard/sign-in');
    expect(before.csrf).not.toBe(signedInToken);
    expect((await v.post('/dashboard/keys', { name: 'k', _csrf: before.csrf })).statusCode).toBe(403);
    // A JSON body is not a form, even with the right token.
    const json = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/keys',
      headers: { cookie: `fs_session=${v.cookies.get('fs_session')}`, 'content-type': 'application/json' },
      payload: { name: 'k', _csrf: signedInToken },
    });
    expect(json.statusCode).toBe(415);
    expect(await count('api_keys')).toBe(0);
  });

  it('says “wrong email or password” alike for both, and locks an email out after repeated failures', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    await v.post('/dashboard/sign-out');
    const attacker = new Visitor(t);
    await attacker.get('/dashboard/sign-in');
    const unknown = await attacker.post('/dashboard/sign-in', { email: 'nobody@example.com', password: PASSWORD });
    expect(unknown.statusCode).toBe(401);
    expect(text(unknown)).toContain('Wrong email or password');
    for (let i = 0; i < EMAIL_FAILURES; i++) {
      const wrong = await attacker.post('/dashboard/sign-in', {
        email: 'ana@example.com',
        password: `wrong password ${i}`,
      });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.body).toContain('value="ana@example.com"');
    }
    // Locked: even the right password is refused, without being checked, until the lock passes.
    const locked = await attacker.post('/dashboard/sign-in', { email: 'ana@example.com', password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBe(30);
    expect(text(locked)).toContain('Too many failed sign-ins: try again in 30 seconds');
    expect(attacker.cookies.has('fs_session')).toBe(false);
    t.clock.advance(31_000);
    // Another failure past the threshold doubles the lock.
    await attacker.post('/dashboard/sign-in', { email: 'ana@example.com', password: 'wrong again!!' });
    expect(
      Number(
        (await attacker.post('/dashboard/sign-in', { email: 'ana@example.com', password: PASSWORD })).headers[
          'retry-after'
        ],
      ),
    ).toBe(60);
    t.clock.advance(61_000);
    expect((await v.post('/dashboard/sign-in', { email: 'ana@example.com', password: PASSWORD })).statusCode).toBe(303);
  });

  it('sends a tampered or expired session back to sign-in, and signing out ends the session on the server', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const token = v.cookies.get('fs_session')!;
    const tampered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    const withTampered = await t.get('/dashboard/keys', { cookie: `fs_session=${tampered}` });
    expect(withTampered.statusCode).toBe(303);
    expect(withTampered.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fkeys&expired=1');
    expect((await t.get('/dashboard/keys', { cookie: `fs_session=${token}` })).statusCode).toBe(200);

    t.clock.advance(SESSION_MS + MINUTE);
    const expired = await v.get('/dashboard/keys');
    expect(expired.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fkeys&expired=1');
    const signIn = await v.get(expired.headers.location as string);
    expect(text(signIn)).toContain('Your session has ended');
    expect(
      (await v.post('/dashboard/sign-in', { email: 'ana@example.com', password: PASSWORD, next: '/dashboard/keys' }))
        .headers.location,
    ).toBe('/dashboard/keys');

    // A form sent after the session ended goes to sign-in too, back to the page it came from, and does nothing.
    await v.get('/dashboard/keys');
    t.clock.advance(SESSION_MS + MINUTE);
    const late = await v.post(
      '/dashboard/keys',
      { name: 'too late' },
      { referer: 'http://localhost:80/dashboard/keys' },
    );
    expect(late.statusCode).toBe(303);
    expect(late.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fkeys&expired=1');
    expect(await count('api_keys')).toBe(0);
    await v.get('/dashboard/sign-in');
    await v.post('/dashboard/sign-in', { email: 'ana@example.com', password: PASSWORD });

    const live = v.cookies.get('fs_session')!;
    await v.get('/dashboard');
    expect((await v.post('/dashboard/sign-out')).headers.location).toBe('/dashboard/sign-in');
    expect((await t.get('/dashboard', { cookie: `fs_session=${live}` })).statusCode).toBe(303);
  });

  it('creates a key shown once that works on the API, lists it with its last use, disables, enables and deletes it', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const key = await v.createKey('claims backend');
    expect(key).toMatch(/^flt_/);
    const account = await t.get('/api/v1/account', bearer(key));
    expect(account.statusCode).toBe(200);
    expect(json(account).data.keyName).toBe('claims backend');
    const keyId = json(account).data.keyId as string;

    const list = await v.get('/dashboard/keys');
    expect(list.body).not.toContain(key);
    expect(text(list)).toContain(`${key.slice(0, 12)}…`);
    expect(text(list)).toMatch(/claims backend .* never enabled/);
    await t.get('/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20', bearer(key));
    expect(text(await v.get('/dashboard/keys'))).toMatch(
      /claims backend .* 2026-03-01 12:00 UTC 2026-03-01 12:00 UTC enabled/,
    );

    const disabled = await v.post(`/dashboard/keys/${keyId}/disable`);
    expect(disabled.headers.location).toBe('/dashboard/keys?done=disabled');
    expect((await t.get('/api/v1/account', bearer(key))).statusCode).toBe(403);
    await v.post(`/dashboard/keys/${keyId}/enable`);
    expect((await t.get('/api/v1/account', bearer(key))).statusCode).toBe(200);
    expect((await v.post(`/dashboard/keys/${keyId}/delete`)).headers.location).toBe('/dashboard/keys?done=deleted');
    expect((await t.get('/api/v1/account', bearer(key))).statusCode).toBe(401);
    expect(text(await v.get('/dashboard/keys?done=deleted'))).toContain('Key deleted. ');

    const empty = await v.post('/dashboard/keys', { name: '  ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('id="f-name-error"');
  });

  it("never shows or changes another account's key (404)", async () => {
    const ana = new Visitor(t);
    await ana.signUp('ana@example.com', 'Ana Co');
    const bob = new Visitor(t);
    await bob.signUp('bob@example.com', 'Bob Co');
    const bobKey = await bob.createKey('bob key');
    const bobKeyId = json(await t.get('/api/v1/account', bearer(bobKey))).data.keyId as string;
    await ana.get('/dashboard/keys');
    for (const action of ['disable', 'delete']) {
      const response = await ana.post(`/dashboard/keys/${bobKeyId}/${action}`);
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/text\/html/);
    }
    expect((await t.get('/api/v1/account', bearer(bobKey))).statusCode).toBe(200);
    expect(text(await ana.get('/dashboard/keys'))).not.toContain('bob key');
  });

  it('charts the last 30 days of metered requests by outcome, refused ones included', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const key = await v.createKey('k');
    await t.get('/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20', bearer(key));
    await t.get('/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20', bearer(key));
    t.clock.advance(DAY);
    await t.get('/api/v1/flights/status?flightNumber=W63101&flightDate=not-a-date', bearer(key));
    // Past the allowance: refused before any credit, so no usage row, but the chart counts it.
    const accountId = (await t.app.db.kysely.selectFrom('users').select('account_id').executeTakeFirstOrThrow())
      .account_id;
    await t.app.accounts.updateAccount(accountId, { plan: { included: 3 } });
    const refused = await t.get('/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20', bearer(key));
    expect(refused.statusCode).toBe(429);
    const overview = await v.get('/dashboard');
    expect(overview.body).toContain('<svg');
    expect(text(overview)).toContain('2 answered, 1 client errors, 0 not answered, 1 refused');
    expect(text(overview)).toContain('2026-03-01 2 0 0 0');
    expect(text(overview)).toContain('2026-03-02 0 1 0 1');
    expect(text(overview)).toMatch(/Included 3 Used 3 Remaining 0/);
  });

  it('answers hostile input with a page that says what is wrong, and unknown pages with 404', async () => {
    const v = new Visitor(t);
    await v.get('/dashboard/sign-in');
    const huge = await v.post('/dashboard/sign-in', { email: 'a@b.co', password: 'x'.repeat(40_000) });
    expect(huge.statusCode).toBe(413);
    expect(text(huge)).toContain('The form is larger than 32 KB');
    const multipart = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x--',
    });
    expect(multipart.statusCode).toBe(415);
    expect(multipart.headers['content-type']).toMatch(/text\/html/);
    const missing = await v.get('/dashboard/nothing-here');
    expect(missing.statusCode).toBe(404);
    expect(text(missing)).toContain('Page not found');
    expect(missing.body).not.toMatch(/at .*\.ts:\d+/);
  });

  it('with sign-up off, lets people in only through an operator’s one-time invitation', async () => {
    await t.close();
    t = await startTestApp(kind, { signupPlan: null });
    const v = new Visitor(t);
    const closed = await v.get('/dashboard/sign-up');
    expect(closed.statusCode).toBe(403);
    expect(text(closed)).toContain('Sign-up is closed');
    await v.get('/dashboard/sign-in');
    expect(
      (await v.post('/dashboard/sign-up', { accountName: 'X', email: 'x@example.com', password: PASSWORD })).statusCode,
    ).toBe(403);

    const { accountId } = await t.account({ slug: 'invited-co' });
    const { token } = await t.app.users.invite(accountId);
    const page = await v.get(`/dashboard/invite/${token}`);
    expect(text(page)).toContain('Accept your invitation');
    const accepted = await v.post(`/dashboard/invite/${token}`, { email: 'cy@example.com', password: PASSWORD });
    expect(accepted.statusCode).toBe(303);
    expect(text(await v.get('/dashboard'))).toContain('invited-co');
    const again = new Visitor(t);
    expect((await again.get(`/dashboard/invite/${token}`)).statusCode).toBe(404);
    expect((await again.get('/dashboard/invite/not-a-token')).statusCode).toBe(404);
    expect(await count('users')).toBe(1);
  });
});

describeEachDatabase('the dashboard’s flight lookup', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  it('says what a lookup costs, then shows the verdict, rationale, compensation and proof image, taking one credit', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const form = await v.get('/dashboard/lookup');
    expect(text(form)).toContain('Each lookup takes one credit, like a request to the API: 1,000 left in this window.');
    const delayed = groundTruth(t.app.sim!, '2026-02-20', { status: 'delayed', operation: 'passenger' })[0]!;
    const answer = await v.post('/dashboard/lookup', {
      flightNumber: delayed.flightNumber,
      flightDate: '2026-02-20',
      origin: delayed.origin,
      destination: '',
    });
    expect(answer.statusCode).toBe(200);
    const shown = text(answer);
    expect(shown).toContain(`Verdict delayed`);
    expect(shown).toMatch(/Why .*delay/i);
    expect(shown).toMatch(/Compensation EU261: /);
    expect(answer.body).toMatch(
      /<img class="proof" src="data:image\/png;base64,iVBOR[^"]+" width="\d+" height="\d+" alt="Proof image: /,
    );
    expect(answer.body).toContain(`value="${delayed.flightNumber}"`);
    expect(shown).toContain('999 left in this window');
    // Metered like the API: a usage row with the user as the caller, settled 200.
    const rows = await t.app.db.kysely.selectFrom('usage_log').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint: 'POST /dashboard/lookup', status: 200 });
    expect(rows[0]!.key_id).toMatch(/^usr_/);
  });

  it('shows why a disrupted flight was disrupted: the cause, the assessment, the reports or the leg behind it, and the claim deadlines', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    await v.get('/dashboard/lookup');
    const day = groundTruth(t.app.sim!, '2026-02-20', { operation: 'passenger' });
    const weather = day.find(
      (f) => f.delayCause.kind === 'weather' && f.status === 'delayed' && f.arrivalDelayMinutes! >= 180,
    )!;
    const answer = await v.post('/dashboard/lookup', {
      flightNumber: weather.flightNumber,
      flightDate: '2026-02-20',
      origin: weather.origin,
      destination: weather.destination,
    });
    const shown = text(answer);
    expect(shown).toMatch(/Circumstances Cause weather Extraordinary \(Art\. 5\(3\)\) (likely|possibly) extraordinary/);
    expect(answer.body).toMatch(
      /<caption>Weather reports consulted, in time order<\/caption>.*<code>[A-Z]{4} \d{6}Z /s,
    );
    // Clean reports are listed as such, and what was looked at is said (the dashboard's service watches no boards here).
    expect(shown).toContain('nothing that matters');
    expect(shown).toMatch(/What was looked at, and what could not be Part Airport Window Looked at Weather/);
    // Not watched: each airport's boards of the day read after the fact, or not available from the provider.
    expect(shown).toMatch(/Boards [A-Z]{3} [^]* (read|not available) /);
    expect(shown).toMatch(/Claim deadlines \(national limitation periods, C-139\/11\)/);
    const knocked = day.find(
      (f) => f.delayCause.kind === 'knock_on' && f.status === 'delayed' && f.arrivalDelayMinutes! >= 180,
    )!;
    const leg = knocked.delayCause.originLeg!;
    const traced = text(
      await v.post('/dashboard/lookup', {
        flightNumber: knocked.flightNumber,
        flightDate: '2026-02-20',
        origin: knocked.origin,
        destination: knocked.destination,
      }),
    );
    expect(traced).toContain(`Started on ${leg.flightNumber} ${leg.origin} → ${leg.destination}, ${leg.flightDate}`);
  });

  it('shows no delay for a flight that never arrived, and why a flight number that cannot be one was not looked up', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    await v.get('/dashboard/lookup');
    const cancelled = groundTruth(t.app.sim!, '2026-02-20', { status: 'cancelled', operation: 'passenger' })[0]!;
    const answer = await v.post('/dashboard/lookup', {
      flightNumber: cancelled.flightNumber,
      flightDate: '2026-02-20',
      origin: cancelled.origin,
      destination: cancelled.destination,
    });
    expect(text(answer)).toContain('Verdict cancelled Delay — ');
    expect(answer.body).not.toMatch(/alt="Proof image: [^"]*, 0m/);
    const zz = text(
      await v.post('/dashboard/lookup', { flightNumber: 'ZZ', flightDate: '2026-02-20', origin: '', destination: '' }),
    );
    expect(zz).toContain('No such flight was found on that date.');
    expect(zz).toContain('ZZ cannot be a flight designator');
  });

  it('looks a flight up by the local date of its boarding pass, and shows its local times beside the UTC ones', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    const form = await v.get('/dashboard/lookup');
    expect(form.body).toMatch(/<input type="radio" name="dateBasis" value="utc" checked>/);
    // AGP is UTC+1: a departure at 23:15 UTC is at 00:15 the next day on the boarding pass.
    const f = groundTruth(t.app.sim!, '2026-02-20').find(
      (x) => x.origin === 'AGP' && x.operation === 'passenger' && x.scheduledDeparture.slice(11, 13) === '23',
    )!;
    const localDay = new Date(Date.parse(f.scheduledDeparture) + 3_600_000).toISOString();
    const answer = await v.post('/dashboard/lookup', {
      flightNumber: f.flightNumber,
      flightDate: localDay.slice(0, 10),
      dateBasis: 'local',
      origin: 'AGP',
      destination: '',
    });
    expect(answer.statusCode).toBe(200);
    expect(text(answer)).toContain(`on ${localDay.slice(0, 10)} (local date)`);
    expect(text(answer)).toContain(`Scheduled, local ${localDay.slice(0, 10)} ${localDay.slice(11, 16)} (UTC+01:00)`);
    expect(answer.body).toMatch(/<input type="radio" name="dateBasis" value="local" checked>/);
    // The evidence link asks the same question.
    expect(answer.body).toMatch(/href="\/dashboard\/evidence\?[^"]*dateBasis=local/);
  });

  it('costs nothing when the form has a mistake or the allowance is used up, and says so', async () => {
    const v = new Visitor(t);
    await v.signUp('ana@example.com');
    await v.get('/dashboard/lookup');
    const bad = await v.post('/dashboard/lookup', { flightNumber: 'RO301', flightDate: '2026-13-45' });
    expect(bad.statusCode).toBe(400);
    expect(text(bad)).toContain('Check the fields marked below. Nothing was sent and no credit was taken.');
    // Each error beside its field, in the form's own words (not the API's parameter names).
    expect(bad.body).toMatch(
      /id="f-flightDate-error"[^>]*>Date of departure must be a date between 1970 and 2099, e.g. 2026-03-01</,
    );
    expect(bad.body).not.toContain('id="f-flightNumber-error"');
    expect(bad.body).toContain('value="RO301"');
    const empty = await v.post('/dashboard/lookup', { flightNumber: 'hello world', flightDate: '', origin: 'Paris' });
    expect(empty.body).toMatch(
      /id="f-flightNumber-error"[^>]*>Flight number must be an airline code and a number, e.g. RO301 or ROT301</,
    );
    expect(empty.body).toMatch(/id="f-flightDate-error"[^>]*>Date of departure is required</);
    expect(empty.body).toMatch(/id="f-origin-error"[^>]*>From must be a 3-letter airport code, e.g. OTP</);
    expect(empty.body).not.toMatch(/flightDate is required|Invalid query/);
    const accountId = (await t.app.db.kysely.selectFrom('users').select('account_id').executeTakeFirstOrThrow())
      .account_id;
    await t.app.accounts.updateAccount(accountId, { plan: { included: 0 } });
    const refused = await v.post('/dashboard/lookup', { flightNumber: 'RO301', flightDate: '2026-02-20' });
    expect(refused.statusCode).toBe(429);
    expect(text(refused)).toContain('The allowance of this window is used up and overage is off');
    expect(await t.app.db.kysely.selectFrom('usage_log').selectAll().execute()).toHaveLength(0);
    expect(text(await v.get('/dashboard'))).toContain('0 answered, 0 client errors, 0 not answered, 1 refused');
  });
});
