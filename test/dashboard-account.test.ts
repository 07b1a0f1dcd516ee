// The account a customer runs without the operator: a forgotten password reset by mail (the form
// never tells whether an email has an account; the link works once, for an hour; the new password
// signs out every session), the address confirmed by a link sent at sign-up, the password changed,
// and every session signed out. Mail goes through a real SMTP server started here.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/databases.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { PASSWORD, text, Visitor } from './helpers/dashboard.js';
import type { ParsedMail } from 'mailparser';
import { startSmtpServer, type MailSink } from './helpers/smtp.js';

const NEW_PASSWORD = 'a much better passphrase';

/** Resolves once `count` mails of `kind` to `email` are in the outbox: sign-up and the reset form queue theirs without waiting. */
async function queuedIn(t: TestApp, email: string, kind: string, count = 1): Promise<void> {
  await expect
    .poll(
      async () =>
        (
          await t.app.db.kysely
            .selectFrom('mail_outbox')
            .select('id')
            .where('recipient', '=', email)
            .where('kind', '=', kind)
            .execute()
        ).length,
    )
    .toBeGreaterThanOrEqual(count);
}

describeEachDatabase('your account', (kind) => {
  let sink: MailSink;
  let t: TestApp;
  const sendMail = async () =>
    expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 })).statusCode).toBe(200);
  const linkIn = (subject: string, path: string) => {
    const mail = [...sink.received].reverse().find((m) => m.subject === subject);
    expect(mail, `${subject} in ${sink.received.map((m) => m.subject).join(', ')}`).toBeDefined();
    return new RegExp(`https://flightstatus\\.example(/dashboard/${path}/[\\w-]{43})`).exec(mail!.text ?? '')![1]!;
  };

  beforeAll(async () => {
    sink = await startSmtpServer();
    t = await startTestApp(kind, {
      mail: sink.config,
      publicUrl: 'https://flightstatus.example',
      pollIntervalMs: 365 * 86_400_000,
    });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('sends a confirmation link at sign-up that confirms the address once', async () => {
    const visitor = new Visitor(t);
    await visitor.signUp('confirm@claims.example');
    expect(text(await visitor.get('/dashboard/account'))).toContain('confirm@claims.example · not confirmed yet');
    await queuedIn(t, 'confirm@claims.example', 'email.verify');
    await sendMail();
    const link = linkIn('Confirm your email address', 'verify-email');
    const confirmed = await visitor.get(link);
    expect(confirmed.statusCode).toBe(200);
    expect(text(confirmed)).toContain('confirm@claims.example is confirmed');
    expect(text(await visitor.get('/dashboard/account'))).toContain('confirm@claims.example · confirmed');
    expect((await visitor.get(link)).statusCode).toBe(404);
  });

  it('sends the mails people wait for when they are queued, not at the next job; one refused is retried by the job', async () => {
    const owner = new Visitor(t);
    // No clock advance below until the retry: the job does not run, only the send at queuing.
    await owner.signUp('atonce@claims.example');
    const to = (address: string) => sink.envelopes.filter((e) => e.includes(address)).length;
    await expect.poll(() => to('atonce@claims.example'), { timeout: 5000 }).toBe(1);
    sink.refuseNext(1);
    const stranger = new Visitor(t);
    await stranger.get('/dashboard/forgot-password');
    await stranger.post('/dashboard/forgot-password', { email: 'atonce@claims.example' });
    const reset = () =>
      t.app.db.kysely
        .selectFrom('mail_outbox')
        .select(['state', 'attempts', 'last_error'])
        .where('recipient', '=', 'atonce@claims.example')
        .where('kind', '=', 'password.reset')
        .executeTakeFirst();
    await expect.poll(async () => (await reset())?.attempts, { timeout: 5000 }).toBe(1);
    expect(await reset()).toMatchObject({ state: 'queued', last_error: expect.stringMatching(/^451/) });
    expect(to('atonce@claims.example')).toBe(1);
    for (let i = 0; i < 3 && (await reset())?.state === 'queued'; i++) await sendMail();
    expect(await reset()).toMatchObject({ state: 'sent', attempts: 2 });
    expect(to('atonce@claims.example')).toBe(2);
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
    await queuedIn(t, 'forgot@claims.example', 'password.reset');
    await sendMail();
    const resets = sink.received.slice(before).filter((m) => m.subject === 'Reset your Flight Status password');
    expect(resets.map((m) => (m.to && 'text' in m.to ? m.to.text : ''))).toEqual(['forgot@claims.example']);
    // Queued sealed: the link (a credential) is never in clear in the table.
    const row = await t.app.db.kysely
      .selectFrom('mail_outbox')
      .select(['body', 'kind'])
      .where('kind', '=', 'password.reset')
      .executeTakeFirstOrThrow();
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
    expect(
      (await stranger.post('/dashboard/sign-in', { email: 'forgot@claims.example', password: PASSWORD })).statusCode,
    ).toBe(401);
    expect(
      (await stranger.post('/dashboard/sign-in', { email: 'forgot@claims.example', password: NEW_PASSWORD }))
        .statusCode,
    ).toBe(303);
    // Used once.
    expect((await new Visitor(t).get(link)).statusCode).toBe(404);
  });

  it('limits reset links per email to 3 an hour', async () => {
    const visitor = new Visitor(t);
    await visitor.get('/dashboard/forgot-password');
    for (let i = 0; i < 3; i++)
      expect((await visitor.post('/dashboard/forgot-password', { email: 'many@claims.example' })).statusCode).toBe(200);
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
    expect(
      (await elsewhere.post('/dashboard/sign-in', { email: 'change@claims.example', password: PASSWORD })).statusCode,
    ).toBe(303);
    await here.get('/dashboard/account');
    const wrong = await here.post('/dashboard/account/password', {
      current: 'not the password',
      password: NEW_PASSWORD,
    });
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
    [
      'a password change',
      async (v: Visitor) =>
        expect(
          (await v.post('/dashboard/account/password', { current: PASSWORD, password: NEW_PASSWORD })).headers.location,
        ).toBe('/dashboard/account?changed=1'),
    ],
    [
      'signing out everywhere',
      async (v: Visitor) => expect((await v.post('/dashboard/account/sign-out-everywhere')).statusCode).toBe(303),
    ],
  ] as const) {
    it(`ends every open reset link of the user at ${ending}`, async () => {
      const email = `ended-${ending.length}@claims.example`;
      const user = new Visitor(t);
      await user.signUp(email);
      const asker = new Visitor(t);
      await asker.get('/dashboard/forgot-password');
      expect((await asker.post('/dashboard/forgot-password', { email })).statusCode).toBe(200);
      expect((await asker.post('/dashboard/forgot-password', { email })).statusCode).toBe(200);
      await queuedIn(t, email, 'password.reset', 2);
      await sendMail();
      const links = sink.received
        .filter(
          (m) =>
            m.subject === 'Reset your Flight Status password' && (m.to && 'text' in m.to ? m.to.text : '') === email,
        )
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
      expect((await signIn.post('/dashboard/sign-in', { email, password: 'what the attacker wants' })).statusCode).toBe(
        401,
      );
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
    t = await startTestApp(kind, {
      mail: sink.config,
      publicUrl: 'https://flightstatus.example',
      pollIntervalMs: 365 * 86_400_000,
    });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });
  const sendMail = async () =>
    expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 })).statusCode).toBe(200);
  const to = (m: ParsedMail) => (m.to && 'text' in m.to ? m.to.text : '');
  const lastMailTo = (email: string) => [...sink.received].reverse().find((m) => to(m) === email);
  /** The invitation link last mailed to `email`. */
  const inviteLink = (email: string) =>
    /https:\/\/flightstatus\.example(\/dashboard\/invite\/[\w-]{43})/.exec(lastMailTo(email)?.text ?? '')![1]!;
  /** A new account's owner, signed in, with their own address confirmed (invitations are mailed in their name). */
  async function confirmedOwner(email: string, accountName = 'Team Co'): Promise<Visitor> {
    const v = new Visitor(t);
    await v.signUp(email, accountName);
    await queued(email, 'email.verify');
    await sendMail();
    const mail = [...sink.received]
      .reverse()
      .find((m) => to(m) === email && m.subject === 'Confirm your email address')!;
    expect(
      (await v.get(/https:\/\/flightstatus\.example(\/dashboard\/verify-email\/[\w-]{43})/.exec(mail.text ?? '')![1]!))
        .statusCode,
    ).toBe(200);
    await v.get('/dashboard/team');
    return v;
  }
  const queued = (email: string, kind: string) => queuedIn(t, email, kind);
  const accountOf = async (email: string) =>
    (
      await t.app.db.kysely
        .selectFrom('users')
        .select('account_id')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).account_id;
  /** Where each accepted invitation sent its new member. */
  const landed = new Map<string, string>();
  /** Follows the invitation mailed to `email`, choosing a password; resolves signed in. */
  async function join(email: string): Promise<Visitor> {
    await sendMail();
    const mail = lastMailTo(email)!;
    expect(mail.subject).toBe('You are invited to a team on Flight Status');
    const link = inviteLink(email);
    const v = new Visitor(t);
    const form = await v.get(link);
    expect(form.body).toContain(`value="${email}"`);
    // The invitation is for that address only.
    const other = await v.post(link, { email: 'someone.else@team.example', password: PASSWORD });
    expect(other.statusCode).toBe(400);
    expect(text(other)).toContain(`This invitation is for ${email}`);
    const accepted = await v.post(link, { email, password: PASSWORD });
    expect(accepted.statusCode).toBe(303);
    landed.set(email, accepted.headers.location as string);
    return v;
  }

  it('invites colleagues by email with a role, limits what each sees, and removes them', async () => {
    const owner = await confirmedOwner('owner@team.example');
    expect(text(await owner.get('/dashboard/account'))).toContain('Invite colleagues');
    await owner.get('/dashboard/team');
    expect(
      (await owner.post('/dashboard/team/invite', { email: 'dev@team.example', role: 'developer' })).headers.location,
    ).toBe('/dashboard/team?done=invited');
    expect(
      (await owner.post('/dashboard/team/invite', { email: 'money@team.example', role: 'billing' })).statusCode,
    ).toBe(303);
    const taken = await owner.post('/dashboard/team/invite', { email: 'owner@team.example', role: 'developer' });
    expect(taken.statusCode).toBe(409);
    expect(text(taken)).toContain('This email already signs in to an account');
    expect((await owner.post('/dashboard/team/invite', { email: 'x@team.example', role: 'admin' })).statusCode).toBe(
      400,
    );

    const dev = await join('dev@team.example');
    const money = await join('money@team.example');
    // The invitation names the role in words; each lands on a page its role opens, the account named in the header.
    expect(lastMailTo('money@team.example')!.text).toContain(
      'invited you to their account on Flight Status with the billing role (the plan and invoices, not the keys).',
    );
    expect(landed.get('dev@team.example')).toBe('/dashboard/keys?welcome=1');
    expect(landed.get('money@team.example')).toBe('/dashboard/billing');
    const landing = await money.get(landed.get('money@team.example')!);
    expect(landing.statusCode).toBe(200);
    const accountName = (
      await t.app.db.kysely
        .selectFrom('accounts')
        .select('name')
        .where('id', '=', await accountOf('owner@team.example'))
        .executeTakeFirstOrThrow()
    ).name;
    expect(accountName).not.toBe('');
    // Billing sees invoices, not keys; the menu shows only what the role opens.
    const nav = /<nav aria-label="Dashboard">[\s\S]*?<\/nav>/.exec((await money.get('/dashboard')).body)![0];
    expect(nav).toContain('href="/dashboard/billing"');
    expect(nav).not.toContain('href="/dashboard/keys"');
    expect((await money.get('/dashboard/billing')).statusCode).toBe(200);
    for (const path of [
      '/dashboard/keys',
      '/dashboard/webhooks',
      '/dashboard/lookup',
      '/dashboard/batches',
      '/dashboard/watches',
      '/dashboard/team',
    ]) {
      const refused = await money.get(path);
      expect(refused.statusCode, path).toBe(403);
      expect(text(refused)).toContain('As billing on this account you do not see');
      expect(refused.body, path).toContain(`<span class="hint">${accountName} · `);
    }
    expect((await money.post('/dashboard/keys', { name: 'sneaky' })).statusCode).toBe(403);
    // A developer: keys and webhooks, not billing nor the team.
    expect((await dev.get('/dashboard/keys')).statusCode).toBe(200);
    expect((await dev.get('/dashboard/billing')).statusCode).toBe(403);
    expect((await dev.get('/dashboard/team')).statusCode).toBe(403);

    // The owner sees everyone, removes the developer: signed out at once.
    const team = text(await owner.get('/dashboard/team'));
    expect(team).toMatch(
      /owner@team\.example \(you\) owner .* dev@team\.example developer .* money@team\.example billing/,
    );
    const devId = (
      await t.app.db.kysely
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'dev@team.example')
        .executeTakeFirstOrThrow()
    ).id;
    const ownerId = (
      await t.app.db.kysely
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'owner@team.example')
        .executeTakeFirstOrThrow()
    ).id;
    expect((await owner.post(`/dashboard/team/${devId}/remove`)).headers.location).toBe('/dashboard/team?done=removed');
    expect((await dev.get('/dashboard/keys')).statusCode).toBe(303);
    const self = await owner.post(`/dashboard/team/${ownerId}/remove`);
    expect(self.statusCode).toBe(400);
    expect(text(self)).toContain('You cannot remove yourself');
  });

  const revokeRefs = (body: string) =>
    [...body.matchAll(/action="\/dashboard\/team\/invitations\/(invite_\w+)\/revoke"/g)].map((m) => m[1]!);

  it('limits invitations per account to 20 an hour and 50 a day, saying when to try again (429, Retry-After)', async () => {
    const owner = await confirmedOwner('limits@team.example', 'Limits Co');
    let sent = 0;
    const invite = () =>
      owner.post('/dashboard/team/invite', { email: `guest-${sent++}@outside.example`, role: 'developer' });
    const untilNext = (period: number) =>
      Math.ceil((Math.floor(t.clock.now() / period) * period + period - t.clock.now()) / 1000);
    const nextHour = async () =>
      expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 3600 })).statusCode).toBe(200);
    const invitesOf = async () =>
      (
        await t.app.db.kysely
          .selectFrom('invites')
          .select('email')
          .where('account_id', '=', await accountOf('limits@team.example'))
          .execute()
      ).length;

    for (let i = 0; i < 20; i++) expect((await invite()).statusCode).toBe(303);
    let refused = await invite();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(untilNext(3_600_000)));
    expect(text(refused)).toContain(
      `This account has sent 20 invitations this hour, the most an hour allows: try again in ${Math.ceil(untilNext(3_600_000) / 60)} minutes`,
    );
    expect(refused.body).toMatch(/value="guest-20@outside\.example"/); // what was typed stays
    expect(await invitesOf()).toBe(20);

    await nextHour();
    for (let i = 0; i < 20; i++) expect((await invite()).statusCode).toBe(303);
    expect((await invite()).statusCode).toBe(429);
    await nextHour();
    // Revoking frees places in the team, not the day's allowance.
    const refs = revokeRefs((await owner.get('/dashboard/team')).body);
    expect(refs).toHaveLength(40);
    for (const ref of refs.slice(0, 15))
      expect((await owner.post(`/dashboard/team/invitations/${ref}/revoke`)).headers.location).toBe(
        '/dashboard/team?done=revoked',
      );
    for (let i = 0; i < 10; i++) expect((await invite()).statusCode).toBe(303);
    refused = await invite();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(untilNext(86_400_000)));
    const midnight = new Date(Math.floor(t.clock.now() / 86_400_000) * 86_400_000 + 86_400_000)
      .toISOString()
      .slice(0, 16)
      .replace('T', ' ');
    expect(text(refused)).toContain(
      `This account has sent 50 invitations today, the most a day allows: try again after ${midnight} UTC`,
    );
    expect(await invitesOf()).toBe(35);
    // Another account has its own allowance.
    const other = await confirmedOwner('limits-other@team.example', 'Other Limits Co');
    expect(
      (await other.post('/dashboard/team/invite', { email: 'guest@outside.example', role: 'developer' })).statusCode,
    ).toBe(303);
  }, 60_000);

  it("lists open invitations with who invited and until when, and revokes one at once; never another account's", async () => {
    const owner = await confirmedOwner('lister@team.example', 'List Co');
    expect(text(await owner.get('/dashboard/team'))).toContain(
      'Open invitations None: every invitation was accepted, revoked or has expired.',
    );
    expect(
      (await owner.post('/dashboard/team/invite', { email: 'dev@list.example', role: 'developer' })).headers.location,
    ).toBe('/dashboard/team?done=invited');
    const expires = new Date(t.clock.now() + 7 * 86_400_000).toISOString().slice(0, 16).replace('T', ' ');
    await t.app.users.invite(await accountOf('lister@team.example')); // the operator's link, for any address
    let page = await owner.get('/dashboard/team?done=invited');
    expect(text(page)).toContain('Invitation sent: the link works once, for a week.');
    expect(text(page)).toContain(
      `dev@list.example developer lister@team.example ${expires} UTC Revoke the invitation to dev@list.example`,
    );
    expect(text(page)).toContain(`any address (the operator’s link) owner the operator ${expires} UTC`);
    const stored = await t.app.db.kysely
      .selectFrom('invites')
      .select(['id', 'ref'])
      .where('email', '=', 'dev@list.example')
      .executeTakeFirstOrThrow();
    expect(page.body).not.toContain(stored.id); // listed by its public id, never the token's hash
    const ref = stored.ref!;
    expect(revokeRefs(page.body)).toContain(ref);
    await sendMail();
    const link = inviteLink('dev@list.example');
    expect((await new Visitor(t).get(link)).statusCode).toBe(200);

    // Another account's owner cannot revoke it: nothing changes.
    const other = await confirmedOwner('other-lister@team.example', 'Other List Co');
    const refused = await other.post(`/dashboard/team/invitations/${ref}/revoke`);
    expect(refused.statusCode).toBe(404);
    expect(text(refused)).toContain('No such open invitation on this account');
    expect((await new Visitor(t).get(link)).statusCode).toBe(200);
    expect((await owner.post('/dashboard/team/invitations/invite_00000000000000000000/revoke')).statusCode).toBe(404);
    expect((await owner.post(`/dashboard/team/invitations/${ref}/revoke`, { _csrf: 'forged' })).statusCode).toBe(403);

    // Its owner revokes it (POST → 303 → GET with a notice): the link stops working at once.
    const revoked = await owner.post(`/dashboard/team/invitations/${ref}/revoke`);
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/dashboard/team?done=revoked');
    page = await owner.get('/dashboard/team?done=revoked');
    expect(text(page)).toContain('Invitation revoked: its link no longer works.');
    expect(text(page)).not.toContain('dev@list.example');
    const stranger = new Visitor(t);
    const dead = await stranger.get(link);
    expect(dead.statusCode).toBe(404);
    await stranger.get('/dashboard/sign-in');
    const accept = await stranger.post(link, { email: 'dev@list.example', password: PASSWORD });
    expect(accept.statusCode).toBe(400);
    expect(text(accept)).toContain('This invitation link has expired or was already used');
    expect(
      await t.app.db.kysely.selectFrom('users').select('id').where('email', '=', 'dev@list.example').executeTakeFirst(),
    ).toBeUndefined();
    expect((await owner.post(`/dashboard/team/invitations/${ref}/revoke`)).statusCode).toBe(404);
  });

  it('counts open invitations toward the 50 people, and invitations sent at once never pass it', async () => {
    for (let round = 0; round < 4; round++) {
      const email = `full-${round}@team.example`;
      const owner = await confirmedOwner(email, 'Full Co');
      const accountId = await accountOf(email);
      // The owner and 48 open invitations (the operator's links) hold 49 of the 50 places.
      for (let i = 0; i < 48; i++) await t.app.users.invite(accountId);
      const answers = await Promise.all(
        [0, 1, 2].map((i) =>
          owner.post('/dashboard/team/invite', { email: `late-${round}-${i}@team.example`, role: 'developer' }),
        ),
      );
      const open = await t.app.db.kysely
        .selectFrom('invites')
        .select('id')
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .execute();
      expect(open, `round ${round}: ${answers.map((r) => r.statusCode).join(', ')}`).toHaveLength(49);
      expect(answers.filter((r) => r.statusCode === 303)).toHaveLength(1);
      for (const r of answers.filter((a) => a.statusCode !== 303)) {
        expect(r.statusCode).toBe(400);
        expect(text(r)).toContain(
          'An account has at most 50 people, open invitations included: revoke an invitation or remove someone first',
        );
      }
    }
  });

  it('mails an invitation with a fixed subject and the account name only quoted, without its links, from a confirmed owner only', async () => {
    const name = 'Prize Co https://evil.example/claim www.evil.example pay@evil.example';
    const owner = new Visitor(t);
    await owner.signUp('prize@team.example', name);
    await owner.get('/dashboard/team');
    // The mail names the inviting owner: their address must be theirs first.
    const unconfirmed = await owner.post('/dashboard/team/invite', {
      email: 'victim@outside.example',
      role: 'developer',
    });
    expect(unconfirmed.statusCode).toBe(403);
    expect(text(unconfirmed)).toContain(
      'Confirm your own email address first (Your account sends the link again): the invitation is mailed in your name',
    );
    expect(
      await t.app.db.kysely
        .selectFrom('invites')
        .select('id')
        .where('email', '=', 'victim@outside.example')
        .executeTakeFirst(),
    ).toBeUndefined();
    await queued('prize@team.example', 'email.verify');
    await sendMail();
    const confirm = [...sink.received]
      .reverse()
      .find((m) => to(m) === 'prize@team.example' && m.subject === 'Confirm your email address')!;
    expect(
      (
        await owner.get(
          /https:\/\/flightstatus\.example(\/dashboard\/verify-email\/[\w-]{43})/.exec(confirm.text ?? '')![1]!,
        )
      ).statusCode,
    ).toBe(200);
    await owner.get('/dashboard/team');
    expect(
      (await owner.post('/dashboard/team/invite', { email: 'victim@outside.example', role: 'developer' })).statusCode,
    ).toBe(303);
    // One open invitation per address: a second is refused until the first is revoked.
    const again = await owner.post('/dashboard/team/invite', { email: 'Victim@Outside.example', role: 'owner' });
    expect(again.statusCode).toBe(409);
    expect(text(again)).toContain(
      'An invitation to victim@outside.example is open already: revoke it below to send a new one',
    );
    await sendMail();

    const mail = lastMailTo('victim@outside.example')!;
    expect(mail.subject).toBe('You are invited to a team on Flight Status');
    const both = `${mail.text}\n${String(mail.html)}`;
    expect(both).not.toMatch(/evil/);
    expect(mail.text).toContain(
      "prize@team.example invited you to their account on Flight Status as a developer (API keys, webhooks, lookups and batches). The account's name, as they wrote it: “Prize Co [link removed] [link removed] [link removed]”.",
    );
    expect(mail.text).toContain(
      'If you do not know prize@team.example, ignore this mail: nothing happens without you.',
    );
    expect(String(mail.html)).toContain('“Prize Co [link removed] [link removed] [link removed]”');
    // The only link in the mail is ours.
    expect(
      [...both.matchAll(/https?:\/\/[^\s"<>]+/g)]
        .map((m) => new URL(m[0]).host)
        .filter((h) => h !== 'flightstatus.example'),
    ).toEqual([]);
    expect(sink.received.filter((m) => /Prize/.test(m.subject ?? ''))).toEqual([]);
  });

  it('keeps exactly one owner when two owners remove each other at once', async () => {
    for (let round = 0; round < 6; round++) {
      const firstEmail = `first-${round}@pair.example`;
      const secondEmail = `second-${round}@pair.example`;
      const first = await confirmedOwner(firstEmail, 'Pair Co');
      expect((await first.post('/dashboard/team/invite', { email: secondEmail, role: 'owner' })).statusCode).toBe(303);
      await sendMail();
      const link = inviteLink(secondEmail);
      const second = new Visitor(t);
      await second.get(link);
      expect((await second.post(link, { email: secondEmail, password: PASSWORD })).statusCode).toBe(303);
      const idOf = async (email: string) =>
        await t.app.db.kysely
          .selectFrom('users')
          .select(['id', 'account_id'])
          .where('email', '=', email)
          .executeTakeFirstOrThrow();
      const [a, b] = [await idOf(firstEmail), await idOf(secondEmail)];
      await first.get('/dashboard/team');
      await second.get('/dashboard/team');

      const answers = await Promise.all([
        first.post(`/dashboard/team/${b.id}/remove`),
        second.post(`/dashboard/team/${a.id}/remove`),
      ]);

      const owners = await t.app.db.kysely
        .selectFrom('users')
        .select('email')
        .where('account_id', '=', a.account_id)
        .where('role', '=', 'owner')
        .execute();
      expect(
        owners,
        `round ${round}: ${answers.map((r) => `${r.statusCode} ${r.headers.location ?? ''}`).join(', ')}`,
      ).toHaveLength(1);
      // One removal went through; the other was refused (or found its owner signed out already).
      expect(answers.filter((r) => r.headers.location === '/dashboard/team?done=removed')).toHaveLength(1);
      const refused = answers.find((r) => r.headers.location !== '/dashboard/team?done=removed')!;
      if (refused.statusCode === 400)
        expect(text(refused)).toMatch(/An account keeps at least one owner|You are no longer on this account/);
      else expect(refused.headers.location).toMatch(/^\/dashboard\/sign-in/);
    }
  });
});
