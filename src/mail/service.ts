// The outbox (docs/mail.md): a capability that wants a mail sent queues it here, in the database,
// and returns at once; the worker role's `mail-send` job sends what is due through the transport,
// retrying a failed send later (a mail server that is down loses nothing). A sent mail keeps its
// envelope (to whom, what, when) and drops its body. Notices carry an unsubscribe link; invoices,
// payments and security mails do not (they are part of the contract, not something to opt out of).
import { createHash, randomBytes } from 'node:crypto';
import { DAY, HOUR, MINUTE, type Clock } from '../clock.js';
import type { MailConfig } from '../config.js';
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Database, MailOutboxTable } from '../db/index.js';
import { backoff, LeasedRows, type LeaseShape } from '../leases/index.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { compose, type Content } from './compose.js';
import { partsOf, storedBody } from './stored-body.js';
import { smtpTransport, type MailTransport } from './transport.js';

/** notices can be unsubscribed from; billing and security mails cannot. */
export type MailCategory = 'billing' | 'notices' | 'security';

export interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MailRequest {
  accountId: string | null;
  to: string;
  /** What the mail is about, for the log and the operator (`invoice.issued`, `credits.80`, …). */
  kind: string;
  category: MailCategory;
  content: Content;
  attachments?: Attachment[];
  /** Set for a mail that must go once: queuing it again is a no-op. */
  dedupeKey?: string;
}

export type Queued = 'queued' | 'duplicate' | 'off' | 'unsubscribed';

export interface MailOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** FLIGHTSTATUS_SMTP_URL and FLIGHTSTATUS_MAIL_FROM; null: mail is off. */
  config: MailConfig | null;
  /** Where links in mails point: FLIGHTSTATUS_PUBLIC_URL, else the service's own address. */
  baseUrl: string;
  /** In place of SMTP (tests of what a transport failure does). */
  transport?: MailTransport;
  /** Seals a queued body with its mail's id as context; absent: stored as composed (unit tests). */
  seal?: BodySeal;
}

/** AES-256-GCM with the mail id as associated data (the webhook secrets' box is one). */
export interface BodySeal {
  seal(context: string, text: string): string;
  open(context: string, stored: string): string;
}

export interface SendReport {
  sent: number;
  retrying: number;
  failed: number;
}

/** Waits after each failed send; after the last, the mail is failed (about two days in all). */
export const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];
/** One worker holds a mail this long while it sends it. */
const LEASE_MS = 2 * MINUTE;
/** Mails taken per pass of the job. */
const BATCH = 50;
/** Mails people wait for, sent as soon as they are queued: a reset, an email's or a billing email's confirmation, an invitation. */
const AT_ONCE: ReadonlySet<MailCategory> = new Set<MailCategory>(['security']);
/** Sent and failed mails are forgotten after this long; unsubscribe links work for a year. */
export const MAIL_RETENTION_MS = 90 * DAY;
const TOKEN_RETENTION_MS = 365 * DAY;

/** The outbox as leased work: queued mails, due by next_attempt_at, in the order they were queued. */
const OUTBOX: LeaseShape = {
  table: 'mail_outbox',
  key: ['id'],
  due: 'next_attempt_at',
  lease: 'lease_until',
  waiting: sql`state = 'queued'`,
  order: ['next_attempt_at', 'seq'],
};

export class MailService {
  private transport: MailTransport | null;
  private readonly outbox: LeasedRows<Selectable<MailOutboxTable>>;
  /** Mails this process is sending at once (sendSoon). */
  private readonly sending = new Set<Promise<unknown>>();

  constructor(private readonly o: MailOptions) {
    this.transport = o.transport ?? (o.config ? smtpTransport(o.config) : null);
    this.outbox = new LeasedRows(o.db, OUTBOX);
  }

  /** Queued mails due now that no worker holds, and those a worker is sending. */
  outboxCounts(): Promise<{ due: number; held: number }> {
    return this.outbox.counts(this.o.clock.now());
  }

  /** Whether this service sends mail at all. */
  get enabled(): boolean {
    return this.transport !== null;
  }

  /** Queues one mail, and starts sending it at once when people wait for it (AT_ONCE); 'off' when mail is not configured. */
  async enqueue(request: MailRequest): Promise<Queued> {
    if (!this.enabled) return 'off';
    const recipient = request.to.trim().toLowerCase();
    const now = this.o.clock.now();
    let unsubscribe: { url: string; tokenId: string } | null = null;
    if (request.category === 'notices') {
      const stopped = await this.o.db.kysely
        .selectFrom('mail_unsubscribes')
        .select('at')
        .where('recipient', '=', recipient)
        .where('category', '=', 'notices')
        .executeTakeFirst();
      if (stopped) return 'unsubscribed';
      const token = randomBytes(24).toString('base64url');
      unsubscribe = { url: `${this.o.baseUrl}/dashboard/unsubscribe/${token}`, tokenId: hashToken(token) };
    }
    const composed = compose(request.content, unsubscribe?.url ?? null);
    const body = storedBody(composed, unsubscribe?.url ?? null, request.attachments);
    const id = newId('mail');
    const stored = JSON.stringify(body);
    const inserted = await this.o.db.kysely
      .insertInto('mail_outbox')
      .values({
        id,
        account_id: request.accountId,
        recipient,
        kind: request.kind,
        subject: composed.subject,
        // A reset or an unsubscribe link in it is a credential: never in clear in a table.
        body: this.o.seal ? this.o.seal.seal(`mail:${id}`, stored) : stored,
        dedupe_key: request.dedupeKey ?? null,
        state: 'queued',
        attempts: 0,
        next_attempt_at: now,
        lease_until: null,
        last_error: null,
        created_at: now,
        sent_at: null,
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return 'duplicate';
    if (unsubscribe) {
      await this.o.db.kysely
        .insertInto('mail_unsubscribe_tokens')
        .values({ id: unsubscribe.tokenId, recipient, category: 'notices', created_at: now })
        .execute();
    }
    this.o.logger.info({ kind: request.kind, account: request.accountId }, 'mail queued');
    if (AT_ONCE.has(request.category)) this.sendSoon(id);
    return 'queued';
  }

  /**
   * The `mail-send` job: sends what is due, one mail at a time, each claimed under a lease (leases/).
   * Mails this process is sending at once (sendSoon) are waited for first, so a pass ends with them.
   */
  async sendDue(): Promise<SendReport> {
    await Promise.allSettled(this.sending);
    const report: SendReport = { sent: 0, retrying: 0, failed: 0 };
    if (!this.transport) return report;
    // One at a time: a mail held while others are sent could see its lease run out first.
    for (let taken = 0; taken < BATCH; taken++) if (!(await this.sendOne(report))) break;
    return report;
  }

  /**
   * Sends one queued mail now, in the background: a mail someone waits for (a reset, a
   * confirmation, an invitation) goes when it is queued, not at the next minute's job. It is claimed
   * like any other (a worker's job never sends it twice); if it cannot be sent, it is given back with
   * its back-off and the job is its retry.
   */
  private sendSoon(id: string): void {
    const task = this.sendOne({ sent: 0, retrying: 0, failed: 0 }, sql`id = ${id}`)
      .catch((error: unknown) =>
        this.o.logger.warn({ mail: id, err: error }, 'mail not sent at once; the job retries it'),
      )
      .finally(() => this.sending.delete(task));
    this.sending.add(task);
  }

  /** Waits for the mails being sent at once (the process is closing). */
  async stop(): Promise<void> {
    await Promise.allSettled(this.sending);
  }

  /** Claims one due mail (of `within`, when given) and sends it; false when there was none. */
  private async sendOne(report: SendReport, within?: RawBuilder<unknown>): Promise<boolean> {
    const transport = this.transport;
    if (!transport) return false;
    const { clock, logger } = this.o;
    const [lease] = await this.outbox.claim({ now: clock.now(), limit: 1, leaseMs: LEASE_MS, within });
    if (!lease) return false;
    const { row, leaseUntil } = lease;
    const id = row.id;
    const parts = partsOf(
      row.recipient,
      row.subject,
      this.o.seal ? this.o.seal.open(`mail:${id}`, row.body!) : row.body!,
    );
    const attempts = Number(row.attempts) + 1;
    try {
      await transport.send(parts);
      await this.outbox.settle([id], leaseUntil, {
        state: 'sent',
        sent_at: clock.now(),
        body: null,
        attempts,
        last_error: null,
      });
      report.sent++;
      logger.info({ mail: id, kind: row.kind, account: row.account_id }, 'mail sent');
    } catch (error) {
      const reason = describe(error);
      const delay = backoff(RETRY_DELAYS_MS, attempts);
      if (delay === null) {
        await this.outbox.settle([id], leaseUntil, { state: 'failed', attempts, last_error: reason, body: null });
        report.failed++;
      } else {
        await this.outbox.release([id], leaseUntil, clock.now() + delay, { attempts, last_error: reason });
        report.retrying++;
      }
      logger.warn(
        { mail: id, kind: row.kind, attempt: attempts, error: reason, retry: delay !== null },
        delay === null ? 'mail failed for good' : 'mail not sent; will retry',
      );
    }
    return true;
  }

  /** The keys among these that a queued (or sent, or failed) mail already has. */
  async queuedKeys(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.o.db.kysely
      .selectFrom('mail_outbox')
      .select('dedupe_key')
      .where('dedupe_key', 'in', keys)
      .execute();
    return new Set(rows.map((r) => r.dedupe_key!));
  }

  /** Forgets sent and failed mails past MAIL_RETENTION_MS, and old unsubscribe tokens. */
  async prune(now: number): Promise<number> {
    const gone = await this.outbox.prune(sql`state != 'queued' AND created_at < ${now - MAIL_RETENTION_MS}`);
    await this.o.db.kysely
      .deleteFrom('mail_unsubscribe_tokens')
      .where('created_at', '<', now - TOKEN_RETENTION_MS)
      .execute();
    return gone;
  }

  /** What an unsubscribe link's token stands for, or null (unknown or too old). */
  async unsubscribeTarget(token: string): Promise<{ recipient: string; category: string } | null> {
    if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) return null;
    const row = await this.o.db.kysely
      .selectFrom('mail_unsubscribe_tokens')
      .select(['recipient', 'category'])
      .where('id', '=', hashToken(token))
      .executeTakeFirst();
    return row ?? null;
  }

  /** Stops the notices to the token's address; true when the token was good (again is fine). */
  async unsubscribe(token: string): Promise<boolean> {
    const target = await this.unsubscribeTarget(token);
    if (!target) return false;
    await this.o.db.kysely
      .insertInto('mail_unsubscribes')
      .values({ recipient: target.recipient, category: target.category, at: this.o.clock.now() })
      .onConflict((oc) => oc.columns(['recipient', 'category']).doNothing())
      .execute();
    return true;
  }

  /** An account's mails, newest first (what was sent, not the bodies). */
  async list(filter: { accountId?: string; state?: MailView['state']; limit?: number }): Promise<MailView[]> {
    let query = this.o.db.kysely
      .selectFrom('mail_outbox')
      .select([
        'id',
        'account_id',
        'recipient',
        'kind',
        'subject',
        'state',
        'attempts',
        'last_error',
        'created_at',
        'sent_at',
        'next_attempt_at',
      ])
      .orderBy('seq', 'desc')
      .limit(Math.min(filter.limit ?? 50, 200));
    if (filter.accountId) query = query.where('account_id', '=', filter.accountId);
    if (filter.state) query = query.where('state', '=', filter.state);
    const rows = await query.execute();
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      to: r.recipient,
      kind: r.kind,
      subject: r.subject,
      state: r.state,
      attempts: r.attempts,
      lastError: r.last_error,
      createdAt: r.created_at,
      sentAt: r.sent_at,
      nextAttemptAt: r.state === 'queued' ? r.next_attempt_at : null,
    }));
  }

  close(): void {
    this.transport?.close();
  }
}

export interface MailView {
  id: string;
  accountId: string | null;
  to: string;
  kind: string;
  subject: string;
  state: 'queued' | 'sent' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
  nextAttemptAt: number | null;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The server's or the network's words, one line, without anything from the URL. */
function describe(error: unknown): string {
  const e = error as { response?: string; code?: string; message?: string };
  return (e.response ?? e.message ?? String(error)).split('\n')[0]!.slice(0, 300);
}
