// The account a customer runs without the operator: a forgotten password reset by mail (the form
// never tells whether an email has an account; the link works once, for an hour; the new password
// signs out every session), the address confirmed by a link sent at sign-up, the password changed,
// and every session signed out. Mail goes through a real SMTP server started here.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/databases.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { PASSWORD, text, Visitor } from './helpers/dashboard.js';
import { startSmtpServer, type MailSink } from './helpers/smtp.js';

const NEW_PASSWORD = 'a much better passphrase';

describeEachDatabase('your account', (kind) => {
  let sink: MailSink;
  let t: TestApp;
  const sendMail = async () => expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 })).statusCode).toBe(200);
  const linkIn = (subject: string, path: string) => {
    const mail = [...sink.received].reverse().find((m) => m.subject === subject);
    expect(mail, `${subject} in ${sink.received.map((m) => m.subject).join(', ')}`).toBeDefined();
    return new RegExp(`https://flightstatus\\.example(/dashboard/${path}/[\\w-]{43})`).exec(mail!.text ?? '')![1]!;
  };

  beforeAll(async () => {
    sink = await startSmtpServer();
    t = await startTestApp(kind, { mail: sink.config, publicUrl: 'https://flightstatus.example', pollIntervalMs: 365 * 86_400_000 });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('sends a confirmation link at sign-up that confirms the address once', async () => {
    const visitor = new Visitor(t);
    await visitor.signUp('confirm@claims.example');
    expect(text(await visitor.get('/dashboard/account'))).toContain('confirm@claims.example · not confirmed yet');
    await sendMail();
    const link = linkIn('Confirm your email address', 'verify-email');
    const confirmed = await visitor.get(link);
    expect(confirmed.statusCode).toBe(200);
    expect(text(confirmed)).toContain('confirm@claims.example is confirmed');
    expect(text(await visitor.get('/dashboard/account'))).toContain('confirm@claims.example · confirmed');
    expect((await visitor.get(link)).statusCode).toBe(404);
  });

  it('resets a forgotten password by a link that works once, without telling whether an email has an account', async () => {
    const owner = new Visitor(t);
    await owner.signUp('forgot@claims.example');
    const before = sink.received.length;
    const stranger = new Visitor(t);
    await stranger.get('/dashboard/sign-in');
    expect(text(await stranger.get('/dashboard/sign-in'))).toContain('Forgot your password?');
    await stranger.get('/dashboard/forgot-password');
    const unknown = await stranger.post('/dashboard/forgot-password', { email: 'nobody@claims.example' });
    const known = await stranger.post('/dashboard/forgot-password', { email: 'Forgot@Claims.example ' });
    expect(unknown.statusCode).toBe(200);
    expect(known.statusCode).toBe(200);
    expect(text(known)).toContain('If an account uses this email, a link to set a new password is on its way');
    expect(text(unknown).replace(/_csrf[^ ]*/g, '')).toBe(text(known).replace(/_csrf[^ ]*/g, ''));
    const badEmail = await stranger.post('/dashboard/forgot-password', { email: 'forgot' });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.body).toMatch(/id="f-email-error"[^>]*>Enter an email address like name@example.com/);
    await sendMail();
    const resets = sink.received.slice(before).filter((m) => m.subject === 'Reset your Flight Status password');
    expect(resets.map((m) => m.to && 'text' in m.to ? m.to.text : '')).toEqual(['forgot@claims.example']);
    // Queued sealed: the link (a credential) is never in clear in the table.
    const row = await t.app.db.kysely.selectFrom('mail_outbox').select(['body', 'kind']).where('kind', '=', 'password.reset').executeTakeFirstOrThrow();
    expect(row.body).toBeNull(); // sent: the body is gone
    const link = linkIn('Reset your Flight Status password', 'reset-password');
    expect(resets[0]!.text).not.toMatch(/Stop these notices/);

    const form = await stranger.get(link);
    expect(form.statusCode).toBe(200);
    const tooShort = await stranger.post(link, { password: 'short' });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.body).toMatch(/id="f-password-error"[^>]*>Password must be 10 to 200 characters/);
    const done = await stranger.post(link, { password: NEW_PASSWORD });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard/sign-in?reset=1');
    // The owner's session ended with the old password; the old password no longer signs in; the new one does.
    expect((await owner.get('/dashboard/keys')).statusCode).toBe(303);
    await stranger.get('/dashboard/sign-in?reset=1');
    expect((await stranger.post('/dashboard/sign-in', { email: 'forgot@claims.example', password: PASSWORD })).statusCode).toBe(401);
    expect((await stranger.post('/dashboard/sign-in', { email: 'forgot@claims.example', password: NEW_PASSWORD })).statusCode).toBe(303);
    // Used once.
    expect((await new Visitor(t).get(link)).statusCode).toBe(404);
  });

  it('limits reset links per email to 3 an hour', async () => {
    const visitor = new Visitor(t);
    await visitor.get('/dashboard/forgot-password');
    for (let i = 0; i < 3; i++) expect((await visitor.post('/dashboard/forgot-password', { email: 'many@claims.example' })).statusCode).toBe(200);
    const refused = await visitor.post('/dashboard/forgot-password', { email: 'many@claims.example' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(text(refused)).toMatch(/Too many reset links asked for: try again in \d+ minutes/);
  });

  it('changes the password with the current one, signing out the other sessions, and signs out everywhere', async () => {
    const here = new Visitor(t);
    await here.signUp('change@claims.example');
    const elsewhere = new Visitor(t);
    await elsewhere.get('/dashboard/sign-in');
    expect((await elsewhere.post('/dashboard/sign-in', { email: 'change@claims.example', password: PASSWORD })).statusCode).toBe(303);
    await here.get('/dashboard/account');
    const wrong = await here.post('/dashboard/account/password', { current: 'not the password', password: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toMatch(/id="f-current-error"[^>]*>The current password is not right/);
    const changed = await here.post('/dashboard/account/password', { current: PASSWORD, password: NEW_PASSWORD });
    expect(changed.headers.location).toBe('/dashboard/account?changed=1');
    expect((await here.get('/dashboard/account?changed=1')).statusCode).toBe(200);
    expect((await elsewhere.get('/dashboard/account')).statusCode).toBe(303);
    const out = await here.post('/dashboard/account/sign-out-everywhere');
    expect(out.statusCode).toBe(303);
    expect((await here.get('/dashboard/account')).statusCode).toBe(303);
  });

  // A reset link asked for earlier (by the user, or by someone who read their mailbox) must not undo
  // the password the user then chose, nor outlive a sign-out meant to shut everyone else out.
  for (const [ending, end] of [
    ['a password change', async (v: Visitor) => expect((await v.post('/dashboard/account/password', { current: PASSWORD, password: NEW_PASSWORD })).headers.location).toBe('/dashboard/account?changed=1')],
    ['signing out everywhere', async (v: Visitor) => expect((await v.post('/dashboard/account/sign-out-everywhere')).statusCode).toBe(303)],
  ] as const) {
    it(`ends every open reset link of the user at ${ending}`, async () => {
      const email = `ended-${ending.length}@claims.example`;
      const user = new Visitor(t);
      await user.signUp(email);
      const asker = new Visitor(t);
      await asker.get('/dashboard/forgot-password');
      expect((await asker.post('/dashboard/forgot-password', { email })).statusCode).toBe(200);
      expect((await asker.post('/dashboard/forgot-password', { email })).statusCode).toBe(200);
      await sendMail();
      const links = sink.received
        .filter((m) => m.subject === 'Reset your Flight Status password' && (m.to && 'text' in m.to ? m.to.text : '') === email)
        .map((m) => /https:\/\/flightstatus\.example(\/dashboard\/reset-password\/[\w-]{43})/.exec(m.text ?? '')![1]!);
      expect(links).toHaveLength(2);
      expect((await asker.get(links[0]!)).statusCode).toBe(200);

      await user.get('/dashboard/account');
      await end(user);

      for (const link of links) {
        const page = await asker.get(link);
        expect(page.statusCode).toBe(404);
        expect(text(page)).toContain('This link does not work');
        expect((await asker.post(link, { password: 'what the attacker wants' })).statusCode).toBe(404);
      }
      // The password is the user's: the one they chose (or still had), never the link's.
      const kept = ending === 'a password change' ? NEW_PASSWORD : PASSWORD;
      const signIn = new Visitor(t);
      await signIn.get('/dashboard/sign-in');
      expect((await signIn.post('/dashboard/sign-in', { email, password: 'what the attacker wants' })).statusCode).toBe(401);
      expect((await signIn.post('/dashboard/sign-in', { email, password: kept })).statusCode).toBe(303);
    });
  }
});

it('says on the reset page that a password cannot be reset where the service sends no mail', async () => {
  const t = await startTestApp('sqlite');
  try {
    const visitor = new Visitor(t);
    const page = await visitor.get('/dashboard/forgot-password');
    expect(text(page)).toContain('This service sends no email, so a password cannot be reset here');
    expect((await visitor.post('/dashboard/forgot-password', { email: 'a@claims.example' })).statusCode).toBe(503);
  } finally {
    await t.close();
  }
});

describeEachDatabase('your team', (kind) => {
  let sink: MailSink;
  let t: TestApp;
  beforeAll(async () => {
    sink = await startSmtpServer();
    t = await startTestApp(kind, { mail: sink.config, publicUrl: 'https://flightstatus.example', pollIntervalMs: 365 * 86_400_000 });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });
  const sendMail = async () => expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 })).statusCode).toBe(200);
  /** Follows the invitation mailed to `email`, choosing a password; resolves signed in. */
  async function join(email: string): Promise<Visitor> {
    await sendMail();
    const mail = [...sink.received].reverse().find((m) => (m.to && 'text' in m.to ? m.to.text : '') === email)!;
    expect(mail.subject).toBe('owner@team.example invited you to Team Co on Flight Status');
    const link = /https:\/\/flightstatus\.example(\/dashboard\/invite\/[\w-]{43})/.exec(mail.text ?? '')![1]!;
    const v = new Visitor(t);
    const form = await v.get(link);
    expect(form.body).toContain(`value="${email}"`);
    // The invitation is for that address only.
    const other = await v.post(link, { email: 'someone.else@team.example', password: PASSWORD });
    expect(other.statusCode).toBe(400);
    expect(text(other)).toContain(`This invitation is for ${email}`);
    expect((await v.post(link, { email, password: PASSWORD })).statusCode).toBe(303);
    return v;
  }

  it('invites colleagues by email with a role, limits what each sees, and removes them', async () => {
    const owner = new Visitor(t);
    await owner.signUp('owner@team.example', 'Team Co');
    expect(text(await owner.get('/dashboard/account'))).toContain('Invite colleagues');
    await owner.get('/dashboard/team');
    expect((await owner.post('/dashboard/team/invite', { email: 'dev@team.example', role: 'developer' })).headers.location).toBe('/dashboard/team?done=invited');
    expect((await owner.post('/dashboard/team/invite', { email: 'money@team.example', role: 'billing' })).statusCode).toBe(303);
    const taken = await owner.post('/dashboard/team/invite', { email: 'owner@team.example', role: 'developer' });
    expect(taken.statusCode).toBe(409);
    expect(text(taken)).toContain('This email already signs in to an account');
    expect((await owner.post('/dashboard/team/invite', { email: 'x@team.example', role: 'admin' })).statusCode).toBe(400);

    const dev = await join('dev@team.example');
    const money = await join('money@team.example');
    // Billing sees invoices, not keys; the menu shows only what the role opens.
    const nav = /<nav aria-label="Dashboard">[\s\S]*?<\/nav>/.exec((await money.get('/dashboard')).body)![0];
    expect(nav).toContain('href="/dashboard/billing"');
    expect(nav).not.toContain('href="/dashboard/keys"');
    expect((await money.get('/dashboard/billing')).statusCode).toBe(200);
    for (const path of ['/dashboard/keys', '/dashboard/webhooks', '/dashboard/lookup', '/dashboard/batches', '/dashboard/team']) {
      const refused = await money.get(path);
      expect(refused.statusCode, path).toBe(403);
      expect(text(refused)).toContain('As billing on this account you do not see');
    }
    expect((await money.post('/dashboard/keys', { name: 'sneaky' })).statusCode).toBe(403);
    // A developer: keys and webhooks, not billing nor the team.
    expect((await dev.get('/dashboard/keys')).statusCode).toBe(200);
    expect((await dev.get('/dashboard/billing')).statusCode).toBe(403);
    expect((await dev.get('/dashboard/team')).statusCode).toBe(403);

    // The owner sees everyone, removes the developer: signed out at once.
    const team = text(await owner.get('/dashboard/team'));
    expect(team).toMatch(/owner@team\.example \(you\) owner .* dev@team\.example developer .* money@team\.example billing/);
    const devId = (await t.app.db.kysely.selectFrom('users').select('id').where('email', '=', 'dev@team.example').executeTakeFirstOrThrow()).id;
    const ownerId = (await t.app.db.kysely.selectFrom('users').select('id').where('email', '=', 'owner@team.example').executeTakeFirstOrThrow()).id;
    expect((await owner.post(`/dashboard/team/${devId}/remove`)).headers.location).toBe('/dashboard/team?done=removed');
    expect((await dev.get('/dashboard/keys')).statusCode).toBe(303);
    const self = await owner.post(`/dashboard/team/${ownerId}/remove`);
    expect(self.statusCode).toBe(400);
    expect(text(self)).toContain('You cannot remove yourself');
  });

  it('keeps exactly one owner when two owners remove each other at once', async () => {
    for (let round = 0; round < 6; round++) {
      const first = new Visitor(t);
      const firstEmail = `first-${round}@pair.example`;
      const secondEmail = `second-${round}@pair.example`;
      await first.signUp(firstEmail, 'Pair Co');
      await first.get('/dashboard/team');
      expect((await first.post('/dashboard/team/invite', { email: secondEmail, role: 'owner' })).statusCode).toBe(303);
      await sendMail();
      const mail = [...sink.received].reverse().find((m) => (m.to && 'text' in m.to ? m.to.text : '') === secondEmail)!;
      const link = /https:\/\/flightstatus\.example(\/dashboard\/invite\/[\w-]{43})/.exec(mail.text ?? '')![1]!;
      const second = new Visitor(t);
      await second.get(link);
      expect((await second.post(link, { email: secondEmail, password: PASSWORD })).statusCode).toBe(303);
      const idOf = async (email: string) => (await t.app.db.kysely.selectFrom('users').select(['id', 'account_id']).where('email', '=', email).executeTakeFirstOrThrow());
      const [a, b] = [await idOf(firstEmail), await idOf(secondEmail)];
      await first.get('/dashboard/team');
      await second.get('/dashboard/team');

      const answers = await Promise.all([first.post(`/dashboard/team/${b.id}/remove`), second.post(`/dashboard/team/${a.id}/remove`)]);

      const owners = await t.app.db.kysely.selectFrom('users').select('email').where('account_id', '=', a.account_id).where('role', '=', 'owner').execute();
      expect(owners, `round ${round}: ${answers.map((r) => `${r.statusCode} ${r.headers.location ?? ''}`).join(', ')}`).toHaveLength(1);
      // One removal went through; the other was refused (or found its owner signed out already).
      expect(answers.filter((r) => r.headers.location === '/dashboard/team?done=removed')).toHaveLength(1);
      const refused = answers.find((r) => r.headers.location !== '/dashboard/team?done=removed')!;
      if (refused.statusCode === 400) expect(text(refused)).toMatch(/An account keeps at least one owner|You are no longer on this account/);
      else expect(refused.headers.location).toMatch(/^\/dashboard\/sign-in/);
    }
  });
});
