// The mail capability as the app builds it: the outbox service, the notices other capabilities
// report to, and the worker's `mail-send` job (every minute on the service clock, in every worker:
// each mail is taken under a lease, so two workers never send one twice). Old mails are forgotten by
// the hourly prune job (scheduler/prune.ts).
import type { Clock } from '../clock.js';
import { MINUTE } from '../clock.js';
import type { MailConfig } from '../config.js';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import type { Capability, Job } from '../capability.js';
import { Notices, type Recipients } from './notices.js';
import { MailService, type BodySeal } from './service.js';
import type { MailTransport } from './transport.js';

export const MAIL_INTERVAL_MS = MINUTE;

export interface MailSetup {
  db: Database;
  clock: Clock;
  logger: Logger;
  config: MailConfig | null;
  /** FLIGHTSTATUS_PUBLIC_URL, else where this service listens (links in mails need an absolute address). */
  baseUrl: string;
  /** Whether FLIGHTSTATUS_PUBLIC_URL is set: without it, links in mails point at this machine (a warning at start). */
  publicUrlSet: boolean;
  recipients: Recipients;
  transport?: MailTransport;
  /** Seals queued bodies (links in them can be credentials): the webhook secrets' key box. */
  seal?: BodySeal;
}

export function mailCapability(setup: MailSetup) {
  const mail = new MailService({
    db: setup.db,
    clock: setup.clock,
    logger: setup.logger,
    config: setup.config,
    baseUrl: setup.baseUrl,
    transport: setup.transport,
    seal: setup.seal,
  });
  const notices = new Notices(mail, setup.recipients, setup.baseUrl, setup.logger);
  if (mail.enabled && !setup.publicUrlSet) {
    setup.logger.warn(
      { links: setup.baseUrl },
      'mail is on but FLIGHTSTATUS_PUBLIC_URL is not set: links in mails point at this machine; set it to where customers reach the service',
    );
  }
  const send: Job = {
    name: 'mail-send',
    intervalMs: MAIL_INTERVAL_MS,
    run: async () => {
      const report = await mail.sendDue();
      if (report.sent + report.retrying + report.failed > 0) setup.logger.info(report, 'mail pass');
    },
  };
  return {
    mail,
    notices,
    jobs: mail.enabled ? [send] : [],
    prune: async (at) => ({ mail_outbox: await mail.prune(at) }),
    leased: { mail_outbox: () => mail.outboxCounts() },
    stop: () => mail.stop(),
    close: () => mail.close(),
  } satisfies Capability & Record<string, unknown>;
}
