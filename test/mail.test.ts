// Mail as a customer receives it: through a real SMTP client (nodemailer) to a real SMTP server
// started here (smtp-server), read back as a mail client would (mailparser). Mails are queued in the
// database and sent by the worker's job on the service clock; a mail server that is down loses
// nothing; notices carry a working unsubscribe link, invoices and payments do not.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/databases.js';
import { ManualClock, HOUR } from '../src/clock.js';
import { ADMIN_TOKEN, bearer, json, notFoundAnswer, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';
import { PASSWORD, text, Visitor } from './helpers/dashboard.js';
import { observe } from './helpers/events.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { startSmtpServer, SMTP_PASSWORD, type MailSink } from './helpers/smtp.js';
import { apiFor, type Api } from './helpers/webhooks.js';

const OWNER = 'owner@claims.example';

describeEachDatabase('mail', (kind) => {
  let sink: MailSink;
  let t: TestApp;
  let api: Api;
  let visitor: Visitor;
  let failing: Receiver;
  let status = 500;
  // What the failing receiver says: a link the mail must not carry to the owner.
  const answer = () => (status === 500 ? { status, body: 'down, see https://evil.example/status' } : status);
  const advance = async (seconds: number) =>
    expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: seconds })).statusCode).toBe(200);
  const outbox = () =>
    t.app.db.kysely.selectFrom('mail_outbox').selectAll().orderBy('created_at').orderBy('id').execute();

  beforeAll(async () => {
    sink = await startSmtpServer();
    t = await startTestApp(kind, {
      mail: sink.config,
      pollIntervalMs: 365 * 86_400_000,
      publicUrl: 'https://flightstatus.example',
    });
    visitor = new Visitor(t);
    await visitor.signUp(OWNER);
    api = apiFor(t, await visitor.createKey('mail test'));
    failing = await startReceiver(answer);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
    await failing?.close();
  });

  it('tells the owner when failures disable an endpoint, with its last errors, and when it is enabled again', async () => {
    // A name with a link in it: subjects carry no tenant text, bodies show it quoted without the link.
    const created = await api('POST', '/api/v1/webhooks', {
      name: 'claims intake see https://evil.example/x',
      url: `${failing.url}/hook`,
      airports: ['ALC'],
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    // 24 failures behind it already (test/webhooks.test.ts makes them one by one): the next disables it.
    await t.app.db.kysely.updateTable('endpoints').set({ consecutive_failures: 24 }).where('id', '=', id).execute();
    await observe(t, 'ALC', 1);
    await advance(120);
    expect((await api('GET', `/api/v1/webhooks/${id}`)).body.data).toMatchObject({ enabled: false });
    // Queued in the database by the delivery cycle, sent by the mail job a minute later.
    await advance(60);
    const mail = sink.received.find((m) => m.subject === 'A webhook endpoint was disabled');
    expect(mail, sink.received.map((m) => m.subject).join(', ')).toBeDefined();
    expect(sink.envelopes.at(-1)).toEqual([OWNER]);
    expect(mail!.from?.text).toBe('"Flight Status" <billing@flightstatus.test>');
    expect(mail!.text).toContain('Your webhook endpoint “claims intake see [link removed]” was disabled');
    expect(mail!.text).toContain('so nothing more is sent to its URL');
    expect(`${mail!.text}${String(mail!.html)}`).not.toMatch(/evil\.example|127\.0\.0\.1/);
    expect(mail!.text).toMatch(/UTC:\s+HTTP 500: receiver answered 500: down, see \[link removed\]/);
    expect(mail!.text).toContain(`Open the endpoint: https://flightstatus.example/dashboard/webhooks/${id}`);
    expect(mail!.html).toContain('“claims intake see [link removed]”');
    // A notice: an unsubscribe link in both parts and in the List-Unsubscribe header (RFC 8058).
    expect(mail!.text).toMatch(/Stop these notices: https:\/\/flightstatus\.example\/dashboard\/unsubscribe\/[\w-]+/);
    expect(mail!.headerLines.find((h) => h.key === 'list-unsubscribe-post')?.line).toBe(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );
    expect(mail!.headerLines.find((h) => h.key === 'list-unsubscribe')?.line.replace(/\r\n\s+/g, ' ')).toMatch(
      /^List-Unsubscribe: <https:\/\/flightstatus\.example\/dashboard\/unsubscribe\/[\w-]+>$/,
    );
    // No secret in the mail: not the endpoint's signing secret, not the SMTP password.
    expect(mail!.text + String(mail!.html)).not.toContain(created.body.data.secret);
    expect(mail!.text + String(mail!.html)).not.toContain(SMTP_PASSWORD);
    // Sent: the envelope is kept, the body is not.
    const row = (await outbox()).find((r) => r.kind === 'webhook.disabled')!;
    expect(row).toMatchObject({ state: 'sent', body: null, attempts: 1, recipient: OWNER });

    status = 204;
    expect((await api('POST', `/api/v1/webhooks/${id}/enable`)).status).toBe(200);
    await advance(60);
    expect(sink.received.map((m) => m.subject)).toContain('A webhook endpoint is enabled again');
    // Enabling an endpoint the account itself disabled is no news.
    await api('POST', `/api/v1/webhooks/${id}/disable`);
    await api('POST', `/api/v1/webhooks/${id}/enable`);
    await advance(60);
    expect(sink.received.filter((m) => /enabled again/.test(m.subject ?? ''))).toHaveLength(1);
  });

  it('keeps a mail while the mail server is down or refuses it, and sends it once it answers', async () => {
    const before = sink.received.length;
    sink.refuseNext(1);
    await t.app.notices.credits({
      accountId: (await api('GET', '/api/v1/account')).body.data.accountId,
      percent: 80,
      used: 800,
      included: 1000,
      periodEnd: t.clock.now() + 86_400_000,
      periodStart: 1,
      overage: false,
    });
    // Queued and due, held by no worker yet: the metrics' leased rows show it.
    const metrics = await t.app.http.inject({ url: '/metrics', headers: bearer(ADMIN_TOKEN) });
    expect(metrics.body).toMatch(/^flightstatus_leased_rows\{work="mail_outbox",state="due"[^}]*\} 1$/m);
    expect(metrics.body).toMatch(/^flightstatus_leased_rows\{work="mail_outbox",state="held"[^}]*\} 0$/m);
    expect(metrics.body).toMatch(/^flightstatus_leased_rows\{work="invoice_charges",state="due"[^}]*\} 0$/m);
    await advance(60);
    let row = (await outbox()).find((r) => r.kind === 'credits.80')!;
    expect(row).toMatchObject({ state: 'queued', attempts: 1 });
    expect(row.last_error).toMatch(/451 Mailbox busy/);
    // Queued sealed (AES-256-GCM with the webhook secrets' key): links in a body are credentials.
    expect(row.body).toMatch(/^sealed:v1:/);
    expect(row.body).not.toContain('lookups');
    // Down altogether: connection refused, still queued, nothing lost.
    const port = sink.port;
    await sink.close();
    await advance(60);
    row = (await outbox()).find((r) => r.kind === 'credits.80')!;
    expect(row).toMatchObject({ state: 'queued', attempts: 2 });
    expect(row.last_error).toMatch(/ECONNREFUSED/);
    const earlier = sink.received;
    sink = await startSmtpServer(port);
    // The second retry waits five minutes.
    await advance(5 * 60);
    expect(earlier.length).toBe(before);
    expect(sink.received.map((m) => m.subject)).toEqual(['You have used 80 % of your lookups']);
    row = (await outbox()).find((r) => r.kind === 'credits.80')!;
    expect(row).toMatchObject({ state: 'sent', attempts: 3, body: null });
  });

  it('shows the operator what was mailed, to whom and in which state, never the body', async () => {
    const accountId = (await api('GET', '/api/v1/account')).body.data.accountId as string;
    const listed = await t.admin('GET', `/api/admin/v1/mail?account=${accountId}&limit=200`);
    expect(listed.statusCode).toBe(200);
    const { enabled, mails } = JSON.parse(listed.body).data as {
      enabled: boolean;
      mails: { kind: string; to: string; state: string; attempts: number; lastError: string | null }[];
    };
    expect(enabled).toBe(true);
    expect(mails.map((m) => m.kind)).toEqual(
      expect.arrayContaining(['webhook.disabled', 'webhook.enabled', 'credits.80', 'email.verify']),
    );
    expect(mails.every((m) => m.to === OWNER && !('body' in m))).toBe(true);
    expect(mails.find((m) => m.kind === 'credits.80')).toMatchObject({ state: 'sent', attempts: 3 });
    const sent = JSON.parse((await t.admin('GET', '/api/admin/v1/mail?state=sent')).body).data.mails as {
      state: string;
    }[];
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((m) => m.state === 'sent')).toBe(true);
    expect((await t.admin('GET', '/api/admin/v1/mail?account=nobody')).statusCode).toBe(404);
    expect((await t.admin('GET', '/api/admin/v1/mail?state=lost')).statusCode).toBe(400);
  });

  it('stops notices from the unsubscribe link, and one-click from the mail client too', async () => {
    const mail = sink.received.find((m) => m.subject === 'You have used 80 % of your lookups')!;
    const link = /(\/dashboard\/unsubscribe\/[\w-]+)/.exec(mail.text ?? '')![1]!;
    const page = await visitor.get(link);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('ow***@claims.example');
    // A link scanner following the link stopped nothing: the page asks.
    const accountId = (await api('GET', '/api/v1/account')).body.data.accountId as string;
    const queue = (percent: 80 | 100) =>
      t.app.notices.credits({
        accountId,
        percent,
        used: 1000,
        included: 1000,
        periodEnd: t.clock.now(),
        periodStart: 2,
        overage: false,
      });
    await queue(100);
    expect((await outbox()).filter((r) => r.kind === 'credits.100')).toHaveLength(1);
    const stopped = await visitor.post(link);
    expect(stopped.statusCode).toBe(200);
    expect(stopped.body).toContain('Notices stopped');
    await t.app.notices.credits({
      accountId,
      percent: 100,
      used: 1000,
      included: 1000,
      periodEnd: t.clock.now(),
      periodStart: 3,
      overage: false,
    });
    expect((await outbox()).filter((r) => r.kind === 'credits.100')).toHaveLength(1);
    // One-click, as a mail client sends it: no session, no CSRF token.
    const oneClick = await t.app.http.inject({
      method: 'POST',
      url: link,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    const unknown = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/unsubscribe/AAAAAAAAAAAAAAAAAAAAAAAA',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(unknown.statusCode).toBe(404);
    expect((await visitor.get('/dashboard/unsubscribe/nope')).statusCode).toBe(404);
  });
});

it('queues nothing when mail is not configured', async () => {
  const t = await startTestApp('sqlite');
  try {
    expect(t.app.mail.enabled).toBe(false);
    expect(
      await t.app.mail.enqueue({
        accountId: null,
        to: 'a@b.example',
        kind: 'x',
        category: 'billing',
        content: { subject: 's', heading: 'h', paragraphs: [], reason: 'r' },
      }),
    ).toBe('off');
    expect(await t.app.db.kysely.selectFrom('mail_outbox').selectAll().execute()).toEqual([]);
    expect(t.app.scheduler.state().map((j) => j.name)).not.toContain('mail-send');
  } finally {
    await t.close();
  }
});

describeEachDatabase('allowance notices', (kind) => {
  it('mails the owner once at 80 % and once at 100 % of a window, and again in the next window', async () => {
    const sink = await startSmtpServer();
    const t = await startTestApp(kind, {
      mail: sink.config,
      signupPlan: { included: 5, overage: false },
      pollIntervalMs: 365 * 86_400_000,
    });
    try {
      const visitor = new Visitor(t);
      await visitor.signUp('credits@claims.example');
      const api = apiFor(t, await visitor.createKey('credits'));
      const lookup = () => api('GET', '/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20');
      // Sorted: mails queued at one service time have no order between them.
      const kinds = async () =>
        (await t.app.db.kysely.selectFrom('mail_outbox').select('kind').execute()).map((r) => r.kind).sort();
      for (let i = 0; i < 3; i++) await lookup();
      await expect.poll(kinds).toEqual(['email.verify']);
      await lookup(); // 4 of 5: 80 %
      await expect.poll(kinds).toEqual(['credits.80', 'email.verify']);
      await lookup(); // 5 of 5: 100 %
      await expect.poll(kinds).toEqual(['credits.100', 'credits.80', 'email.verify']);
      expect((await lookup()).status).toBe(429); // refused: nothing taken, nothing told
      // Told once per window, however often the same count is reported.
      const accountId = (await api('GET', '/api/v1/account')).body.data.accountId as string;
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 });
      // After sign-up's confirmation link.
      const subjects = sink.received.map((m) => m.subject).sort();
      expect(subjects).toEqual([
        'Confirm your email address',
        'You have used 80 % of your lookups',
        'Your allowance of lookups is used up',
      ]);
      const spent = sink.received.find((m) => m.subject === 'Your allowance of lookups is used up')!;
      expect(spent.text).toContain('You have used 5 of the 5 lookups included in this window.');
      expect(spent.text).toMatch(
        /Lookups are refused \(429\) until the allowance resets on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
      );
      expect(sink.envelopes).toEqual([
        ['credits@claims.example'],
        ['credits@claims.example'],
        ['credits@claims.example'],
      ]);
      // Once per account and window: the same window again is a no-op, the next window is told again.
      const facts = { accountId, percent: 80 as const, used: 4, included: 5, periodEnd: 0, overage: false };
      const windowStart = (
        await t.app.db.kysely
          .selectFrom('accounts')
          .select('window_anchor')
          .where('id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).window_anchor;
      await t.app.notices.credits({ ...facts, periodStart: Number(windowStart) });
      expect(await kinds()).toEqual(['credits.100', 'credits.80', 'email.verify']);
      await t.app.notices.credits({ ...facts, periodStart: Number(windowStart) + 30 * 86_400_000 });
      expect(await kinds()).toEqual(['credits.100', 'credits.80', 'credits.80', 'email.verify']);
    } finally {
      await t.close();
      await sink.close();
    }
  }, 60_000);
});

describeEachDatabase('billing mails', (kind) => {
  it('mails the invoice with its PDF, each declined charge, past due with what stops working, and the receipt', async () => {
    const sink = await startSmtpServer();
    const t = await startTestApp(kind, {
      mail: sink.config,
      clock: new ManualClock(Date.UTC(2026, 2, 31, 12)),
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
      // Declined at opening, retried an hour later, then past due.
      billing: { gateway: 'simulated', retryDelaysMs: [HOUR] },
    });
    try {
      await t.admin('POST', '/api/admin/v1/plans', {
        id: 'starter',
        name: 'Starter',
        currency: 'EUR',
        monthlyFee: '0',
        included: 3,
        overage: true,
        overagePrice: '0.125',
      });
      // An account the operator made on the plan, whose owner joined by the operator's invitation.
      const { accountId, key } = await t.account({ plan: null });
      // Its billing email receives invoices and payment mails; the owner, the notices.
      await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, {
        planId: 'starter',
        gatewayCustomer: 'cus_demo',
        paymentMethod: 'pm_card_chargeDeclined',
        billing: { email: 'accounts@claims.example' },
      });
      const { token } = await t.app.users.invite(accountId);
      const joined = await t.app.users.acceptInvite(token, {
        email: 'billing@claims.example',
        password: 'correct horse battery',
      });
      expect(joined.kind).toBe('ok');
      for (let i = 0; i < 10; i++) await t.get(STATUS_URL, bearer(key)); // 7 overage: €0.88
      await t.admin('POST', '/api/admin/v1/clock', { to: '2026-04-01T03:30:00Z' });
      const subjects = () => sink.received.map((m) => m.subject);
      // The allowance notice first (3 of 3 at the third lookup; overage goes on), then billing's.
      expect(subjects()).toEqual([
        'Your allowance of lookups is used up',
        'Invoice FS-000001: 0.88 EUR',
        'Payment of invoice FS-000001 failed',
        'Payment of invoice FS-000001 failed',
        'Your account is past due: invoice FS-000001 is unpaid',
      ]);
      expect(sink.received[0]!.text).toContain('Lookups go on as overage, billed per request at the end of the month.');
      const [, issued, first, last, pastDue] = sink.received;
      expect(sink.envelopes.map((to) => to[0])).toEqual([
        'billing@claims.example',
        ...Array(4).fill('accounts@claims.example'),
      ]);
      // The invoice, with its PDF attached; billing mails have no unsubscribe link.
      expect(issued!.attachments.map((a) => [a.filename, a.contentType])).toEqual([
        ['FS-000001.pdf', 'application/pdf'],
      ]);
      expect(issued!.attachments[0]!.content.subarray(0, 5).toString()).toBe('%PDF-');
      expect(issued!.text).toContain('Your invoice for the overage of 2026-03-01 to 2026-03-31 is attached.');
      expect(issued!.text).not.toMatch(/Stop these notices/);
      expect(issued!.text).toMatch(/Due:\s+2026-04-15/); // 14 days of payment terms
      expect(issued!.headerLines.some((h) => h.key === 'list-unsubscribe')).toBe(false);
      // Each dunning step: which attempt, why, and when the next one is.
      expect(first!.text).toMatch(/Attempt 1 to charge 0.88 EUR was declined: card_declined/);
      expect(first!.text).toContain('We will try again on 2026-04-01.');
      expect(last!.text).toMatch(/Attempt 2 to charge 0.88 EUR was declined/);
      expect(last!.text).toContain('This was the last attempt.');
      expect(pastDue!.text).toContain(
        'What stops working: every API lookup and batch is refused with 402 Payment Required until the invoice is paid.',
      );
      expect(pastDue!.text).toContain('How to fix it:');
      expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(402);

      // Paid by the operator: the receipt goes out with the next mail pass.
      const [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
      await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/pay`, { reason: 'paid by bank transfer' });
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 });
      expect(subjects().at(-1)).toBe('Receipt for invoice FS-000001');
      expect(sink.received.at(-1)!.text).toContain(
        'We received 0.88 EUR for the overage of 2026-03-01 to 2026-03-31 on 2026-04-01.',
      );
      // A part refunded: the credit note is queued at once and sent, its PDF attached, to the billing email.
      expect(
        (
          await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/credit-notes`, {
            reason: 'two lookups counted twice',
            amount: '0.25',
          })
        ).statusCode,
      ).toBe(201);
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 }); // the next mail pass
      expect(subjects().at(-1)).toBe('Credit note CN-000001: 0.25 EUR on invoice FS-000001');
      const credited = sink.received.at(-1)!;
      expect(credited.text).toContain(
        'We credited 0.25 EUR on invoice FS-000001 (the overage of 2026-03-01 to 2026-03-31): two lookups counted twice. The credit note is attached.',
      );
      expect(credited.attachments.map((a) => a.filename)).toEqual(['CN-000001.pdf']);
      expect(sink.envelopes.at(-1)![0]).toBe('accounts@claims.example');
      // Each told once, however many billing runs looked at the events since.
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 3 * 3600 });
      expect(sink.received).toHaveLength(7);
    } finally {
      await t.close();
      await sink.close();
    }
  }, 120_000);
});

describeEachDatabase('the billing email', (kind) => {
  it('gets billing mail only once confirmed by the link mailed to it (the owner until then), and again after each change', async () => {
    const sink = await startSmtpServer();
    const t = await startTestApp(kind, {
      mail: sink.config,
      publicUrl: 'https://flightstatus.example',
      clock: new ManualClock(Date.UTC(2026, 2, 31, 12)),
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
    });
    try {
      const to = (m: (typeof sink.received)[number]) => (m.to && 'text' in m.to ? m.to.text : '');
      const billingOf = async (id: string) => json(await t.admin('GET', `/api/admin/v1/accounts/${id}`)).data.billing;
      const confirmLink = (email: string) =>
        /https:\/\/flightstatus\.example(\/dashboard\/confirm-billing-email\/[\w-]{43})/.exec(
          [...sink.received].reverse().find((m) => to(m) === email && m.subject === 'Confirm this address for invoices')
            ?.text ?? '',
        )?.[1];
      await t.admin('POST', '/api/admin/v1/plans', {
        id: 'starter',
        name: 'Starter',
        currency: 'EUR',
        monthlyFee: '0',
        included: 3,
        overage: true,
        overagePrice: '0.125',
      });
      const { accountId, key, slug } = await t.account({ plan: null });
      await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { planId: 'starter' });
      const { token } = await t.app.users.invite(accountId);
      expect((await t.app.users.acceptInvite(token, { email: OWNER, password: PASSWORD })).kind).toBe('ok');
      const owner = new Visitor(t);
      await owner.get('/dashboard/sign-in');
      expect((await owner.post('/dashboard/sign-in', { email: OWNER, password: PASSWORD })).statusCode).toBe(303);
      await owner.get('/dashboard/billing');
      const details = (email: string) =>
        owner.post('/dashboard/billing/details', { name: '', address: '', country: '', vatId: '', email });

      // Set on the dashboard: not confirmed; a link goes to the address.
      expect((await details('Accounts@Claims.example')).headers.location).toBe(
        '/dashboard/billing?details=confirm#billing-details',
      );
      const page = text(await owner.get('/dashboard/billing?details=confirm'));
      expect(page).toContain(
        'A confirmation link was mailed to accounts@claims.example: billing mail goes there once it is opened.',
      );
      expect(page).toContain(
        'Billing email accounts@claims.example · not confirmed yet: billing mail goes to the account owner until the link mailed to it is opened.',
      );
      expect(await billingOf(accountId)).toMatchObject({ email: 'accounts@claims.example', emailConfirmed: false });
      // Until it is confirmed, the invoice goes to the owner, as if there were no billing email.
      for (let i = 0; i < 10; i++) await t.get(STATUS_URL, bearer(key));
      await t.admin('POST', '/api/admin/v1/clock', { to: '2026-04-01T03:30:00Z' });
      expect(sink.received.map((m) => [m.subject, to(m)])).toEqual([
        ['Confirm this address for invoices', 'accounts@claims.example'],
        ['Your allowance of lookups is used up', OWNER],
        ['Invoice FS-000001: 0.88 EUR', OWNER],
      ]);
      const confirmMail = sink.received[0]!;
      expect(confirmMail.text).not.toContain(slug); // nothing of the tenant's
      expect(confirmMail.text).not.toMatch(/Stop these notices/);
      const link = confirmLink('accounts@claims.example')!;

      // The link shows what it would confirm; only the form confirms (a link scanner confirms nothing).
      const accountant = new Visitor(t);
      const shown = await accountant.get(link);
      expect(shown.statusCode).toBe(200);
      expect(text(shown)).toContain(
        `Invoices, receipts and payment mails of the account “${slug}” on Flight Status would go to accounts@claims.example.`,
      );
      expect((await billingOf(accountId)).emailConfirmed).toBe(false);
      const confirmed = await accountant.post(link);
      expect(confirmed.statusCode).toBe(200);
      expect(text(confirmed)).toContain(
        `Invoices, receipts and payment mails of the account “${slug}” now go to accounts@claims.example.`,
      );
      expect(await billingOf(accountId)).toMatchObject({ email: 'accounts@claims.example', emailConfirmed: true });
      expect(text(await owner.get('/dashboard/billing'))).toContain(
        'Billing email accounts@claims.example · confirmed: invoices and receipts go to it.',
      );
      expect((await new Visitor(t).get(link)).statusCode).toBe(404); // once
      // Confirmed: the receipt goes to it.
      const [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
      await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/pay`, { reason: 'paid by bank transfer' });
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 });
      expect([sink.received.at(-1)!.subject, to(sink.received.at(-1)!)]).toEqual([
        'Receipt for invoice FS-000001',
        'accounts@claims.example',
      ]);

      // Changed: not confirmed again, billing mail back to the owner, a link to the new address.
      expect((await details('ap@claims.example')).headers.location).toBe(
        '/dashboard/billing?details=confirm#billing-details',
      );
      expect(await billingOf(accountId)).toMatchObject({ email: 'ap@claims.example', emailConfirmed: false });
      expect(
        (
          await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/credit-notes`, {
            reason: 'goodwill',
            amount: '0.25',
          })
        ).statusCode,
      ).toBe(201);
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 });
      expect(sink.received.slice(-2).map((m) => [m.subject, to(m)])).toEqual([
        ['Confirm this address for invoices', 'ap@claims.example'],
        ['Credit note CN-000001: 0.25 EUR on invoice FS-000001', OWNER],
      ]);
      // A link sent for an address changed since confirms nothing.
      const apLink = confirmLink('ap@claims.example')!;
      expect((await details('ap2@claims.example')).statusCode).toBe(303);
      expect((await accountant.get(apLink)).statusCode).toBe(404);
      expect((await accountant.post(apLink)).statusCode).toBe(404);
      expect(await billingOf(accountId)).toMatchObject({ email: 'ap2@claims.example', emailConfirmed: false });

      // Links are limited per account: 3 an hour (two changes and one more), then 429 with when to try again.
      await owner.get('/dashboard/billing');
      const again = await owner.post('/dashboard/billing/email/confirm');
      expect(again.headers.location).toBe('/dashboard/billing?details=sent#billing-email-state');
      expect(text(await owner.get('/dashboard/billing?details=sent'))).toContain(
        'A new confirmation link is on its way to ap2@claims.example.',
      );
      const minutes = Math.ceil((Math.floor(t.clock.now() / HOUR) * HOUR + HOUR - t.clock.now()) / 60_000);
      const refused = await owner.post('/dashboard/billing/email/confirm');
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(text(refused)).toContain(
        `Too many confirmation links for this account (at most 3 an hour): try again in ${minutes} minutes`,
      );
      // A change of the address in that hour is refused whole: nothing is saved.
      const change = await details('ap3@claims.example');
      expect(change.statusCode).toBe(429);
      expect(change.body).toMatch(/<p class="error" id="f-email-error">Too many confirmation links for this account/);
      expect((await billingOf(accountId)).email).toBe('ap2@claims.example');

      // Confirmation links go when they are queued: both to ap2@ (its change, then asked for again) have arrived.
      const confirmationsTo = (email: string) =>
        sink.received.filter((m) => to(m) === email && m.subject === 'Confirm this address for invoices').length;
      await expect.poll(() => confirmationsTo('ap2@claims.example'), { timeout: 5000 }).toBe(2);
      // The operator vouches for an address it sets: confirmed at once, no link mailed.
      const before = sink.received.length;
      const patched = await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, {
        billing: { email: 'books@claims.example' },
      });
      expect(json(patched).data.billing).toMatchObject({ email: 'books@claims.example', emailConfirmed: true });
      // A change of other details by the operator does not confirm what the customer set.
      expect((await details('ap4@claims.example')).statusCode).toBe(429); // still this hour
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: HOUR / 1000 });
      expect((await details('ap4@claims.example')).statusCode).toBe(303);
      expect(
        json(await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { billing: { name: 'Claims SARL' } })).data
          .billing,
      ).toMatchObject({ email: 'ap4@claims.example', emailConfirmed: false });
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 60 });
      // Mailed since: the link to ap4@; nothing to the operator's address.
      expect(sink.received.slice(before).map((m) => [m.subject, to(m)])).toEqual([
        ['Confirm this address for invoices', 'ap4@claims.example'],
      ]);
    } finally {
      await t.close();
      await sink.close();
    }
  }, 120_000);
});
