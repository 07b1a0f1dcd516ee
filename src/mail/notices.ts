// What the service tells an account by mail, worded once here (the mails about invoices and payments
// in billing-notices.ts): the other capabilities report facts (an endpoint was disabled, an invoice
// was issued) and these queue the mail to the account's address. A mail that cannot be queued is
// logged and never fails the work that reported it.
import type { Logger } from '../logger.js';
import {
  creditNoteIssuedMail,
  invoiceIssuedMail,
  invoicePaidMail,
  pastDueMail,
  paymentFailedMail,
  type InvoiceFacts,
  type PaymentFailedFacts,
} from './billing-notices.js';
import { day, quoted, time, withoutLinks } from './compose.js';
import type { MailService, MailRequest } from './service.js';

/** Where an account's mail of `category` goes (billing: its billing email, else its owner's); null: nobody to tell. */
export type Recipients = (accountId: string, category: 'billing' | 'notices' | 'security') => Promise<string | null>;

export interface EndpointFacts {
  accountId: string;
  endpointId: string;
  name: string;
  url: string;
  at: number;
}

export interface DisabledEndpointFacts extends EndpointFacts {
  reason: string;
  /** The last failed attempts, newest first. */
  lastErrors: { at: number; status: number | null; error: string | null }[];
}

export interface CreditFacts {
  accountId: string;
  percent: 80 | 100;
  used: number;
  included: number;
  /** The window's end: when the allowance resets. */
  periodEnd: number;
  overage: boolean;
  /** The window's start, so each window is told once. */
  periodStart: number;
}

/** How an invitation names the role it gives (the dashboard's Team page says the same). */
const INVITED_AS: Record<string, string> = {
  owner: 'as an owner (everything, the team included)',
  developer: 'as a developer (API keys, webhooks, lookups and batches)',
  billing: 'with the billing role (the plan and invoices, not the keys)',
};

export class Notices {
  constructor(
    private readonly mail: MailService,
    private readonly recipients: Recipients,
    private readonly baseUrl: string,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.mail.enabled;
  }

  endpointDisabled(f: DisabledEndpointFacts): Promise<void> {
    const errors = f.lastErrors
      .slice(0, 5)
      .map(
        (e) =>
          [
            time(e.at),
            e.status === null
              ? withoutLinks(e.error ?? 'no answer')
              : `HTTP ${e.status}${e.error ? `: ${withoutLinks(e.error)}` : ''}`,
          ] as [string, string],
      );
    return this.send(f.accountId, {
      kind: 'webhook.disabled',
      category: 'notices',
      dedupeKey: `webhook.disabled:${f.endpointId}:${f.at}`,
      content: {
        subject: 'A webhook endpoint was disabled',
        heading: `Your webhook endpoint ${quoted(f.name)} was disabled`,
        paragraphs: [
          `It was disabled at ${time(f.at)} (${f.reason}), so nothing more is sent to its URL. What its airports' boards show meanwhile is kept, and can be resent once it is enabled.`,
          'Fix the receiver, then enable the endpoint on the dashboard (or POST /api/v1/webhooks/{id}/enable). Its last errors:',
        ],
        facts: errors.length > 0 ? errors : [['Last error', 'none recorded']],
        action: { label: 'Open the endpoint', url: `${this.baseUrl}/dashboard/webhooks/${f.endpointId}` },
        reason: 'You get this mail because your account owns this webhook endpoint.',
      },
    });
  }

  endpointEnabled(f: EndpointFacts): Promise<void> {
    return this.send(f.accountId, {
      kind: 'webhook.enabled',
      category: 'notices',
      dedupeKey: `webhook.enabled:${f.endpointId}:${f.at}`,
      content: {
        subject: 'A webhook endpoint is enabled again',
        heading: `Your webhook endpoint ${quoted(f.name)} is enabled again`,
        paragraphs: [`Deliveries to it resumed at ${time(f.at)}.`],
        action: { label: 'Open the endpoint', url: `${this.baseUrl}/dashboard/webhooks/${f.endpointId}` },
        reason: 'You get this mail because your account owns this webhook endpoint.',
      },
    });
  }

  credits(f: CreditFacts): Promise<void> {
    const spent = f.percent === 100;
    const then = spent
      ? f.overage
        ? 'Lookups go on as overage, billed per request at the end of the month.'
        : `Lookups are refused (429) until the allowance resets on ${time(f.periodEnd)}, unless you change plan.`
      : `At 100 % ${f.overage ? 'lookups go on as overage, billed per request' : 'lookups are refused (429) until the allowance resets'}.`;
    return this.send(f.accountId, {
      kind: `credits.${f.percent}`,
      category: 'notices',
      dedupeKey: `credits.${f.percent}:${f.accountId}:${f.periodStart}`,
      content: {
        subject: spent ? 'Your allowance of lookups is used up' : `You have used ${f.percent} % of your lookups`,
        heading: spent ? 'Your allowance is used up' : `${f.percent} % of your allowance is used`,
        paragraphs: [
          `You have used ${f.used.toLocaleString('en')} of the ${f.included.toLocaleString('en')} lookups included in this window.`,
          then,
        ],
        facts: [
          ['Used', f.used.toLocaleString('en')],
          ['Included', f.included.toLocaleString('en')],
          ['Resets', time(f.periodEnd)],
        ],
        action: { label: 'See your usage', url: `${this.baseUrl}/dashboard` },
        reason: 'You get this mail because you own this account.',
      },
    });
  }

  /** The invoice with its PDF, rendered only when there is somebody to send it to. */
  invoiceIssued(f: InvoiceFacts & { dueDate: string | null; pdf: () => Promise<Buffer> }): Promise<void> {
    return this.withPdf(f.accountId, `${f.number}.pdf`, f.pdf, invoiceIssuedMail(f, this.baseUrl));
  }

  /** A credit note on one of the account's invoices, with its PDF. */
  creditNoteIssued(
    f: InvoiceFacts & {
      creditNoteId: string;
      creditNumber: string;
      credited: string;
      reason: string;
      pdf: () => Promise<Buffer>;
    },
  ): Promise<void> {
    return this.withPdf(f.accountId, `${f.creditNumber}.pdf`, f.pdf, creditNoteIssuedMail(f, this.baseUrl));
  }

  /** A billing document to the billing contact, its PDF rendered only when there is somebody to send it to. */
  private async withPdf(
    accountId: string,
    filename: string,
    pdf: () => Promise<Buffer>,
    request: Omit<MailRequest, 'accountId' | 'to' | 'attachments'>,
  ): Promise<void> {
    if (!this.mail.enabled) return;
    const to = await this.recipients(accountId, 'billing').catch(() => null);
    if (!to) return;
    return this.direct(accountId, to, {
      ...request,
      attachments: [{ filename, contentType: 'application/pdf', content: await pdf() }],
    });
  }

  invoicePaid(f: InvoiceFacts & { paidAt: number }): Promise<void> {
    return this.send(f.accountId, invoicePaidMail(f, this.baseUrl));
  }

  paymentFailed(f: PaymentFailedFacts): Promise<void> {
    return this.send(f.accountId, paymentFailedMail(f, this.baseUrl));
  }

  pastDue(f: InvoiceFacts & { at: number }): Promise<void> {
    return this.send(f.accountId, pastDueMail(f, this.baseUrl));
  }

  /** A password reset link, to the address that asked for it (security: no unsubscribe). */
  async passwordReset(link: { accountId: string; email: string; token: string; expiresAt: number }): Promise<void> {
    await this.direct(link.accountId, link.email, {
      kind: 'password.reset',
      category: 'security',
      content: {
        subject: 'Reset your Flight Status password',
        heading: 'Reset your password',
        paragraphs: [
          `Somebody, hopefully you, asked to reset the password of ${link.email}. The link works once, until ${time(link.expiresAt)}.`,
          'Setting a new password signs you out everywhere. If you did not ask for this, ignore this mail: your password stays as it is.',
        ],
        action: { label: 'Set a new password', url: `${this.baseUrl}/dashboard/reset-password/${link.token}` },
        reason: 'You get this mail because a password reset was asked for on the dashboard with this address.',
      },
    });
  }

  /** The link that proves the address, sent at sign-up and when the user asks again. */
  async verifyEmail(link: { accountId: string; email: string; token: string; expiresAt: number }): Promise<void> {
    await this.direct(link.accountId, link.email, {
      kind: 'email.verify',
      category: 'security',
      content: {
        subject: 'Confirm your email address',
        heading: 'Confirm your email address',
        paragraphs: [
          `Open the link to confirm that ${link.email} is yours. It works until ${day(link.expiresAt)}.`,
          'Invoices, payment problems and notices about your account are sent to it.',
        ],
        action: { label: 'Confirm my address', url: `${this.baseUrl}/dashboard/verify-email/${link.token}` },
        reason: 'You get this mail because this address signed up on the dashboard.',
      },
    });
  }

  /** An owner's invitation, with the role it gives: to an address the tenant chose, so no tenant text in the subject, the account's name only quoted(). */
  async invitation(link: {
    accountId: string;
    accountName: string;
    email: string;
    role: string;
    invitedBy: string;
    token: string;
    expiresAt: number;
  }): Promise<void> {
    await this.direct(link.accountId, link.email, {
      kind: 'team.invitation',
      category: 'security',
      content: {
        subject: 'You are invited to a team on Flight Status',
        heading: 'You are invited to a team',
        paragraphs: [
          `${link.invitedBy} invited you to their account on Flight Status ${INVITED_AS[link.role] ?? `as ${link.role}`}. The account's name, as they wrote it: ${quoted(link.accountName)}.`,
          `Open the link to choose your password. It works once, until ${day(link.expiresAt)}. If you do not know ${link.invitedBy}, ignore this mail: nothing happens without you.`,
        ],
        action: { label: 'Accept the invitation', url: `${this.baseUrl}/dashboard/invite/${link.token}` },
        reason: 'You get this mail because an owner of an account on this service entered your address.',
      },
    });
  }

  /** The link that confirms a billing email, to that address; no text of the tenant's at all. */
  async billingEmailConfirmation(link: {
    accountId: string;
    email: string;
    token: string;
    expiresAt: number;
  }): Promise<void> {
    await this.direct(link.accountId, link.email, {
      kind: 'billing.email_confirm',
      category: 'security',
      content: {
        subject: 'Confirm this address for invoices',
        heading: 'Confirm this address for invoices',
        paragraphs: [
          'This address was entered as the billing email of an account on Flight Status: its invoices, receipts and payment mails would come here. Nothing is sent to it before you confirm.',
          `The link shows which account and asks you to confirm; it works once, until ${day(link.expiresAt)}. If you did not expect this, ignore this mail.`,
        ],
        action: { label: 'See and confirm', url: `${this.baseUrl}/dashboard/confirm-billing-email/${link.token}` },
        reason: 'You get this mail because this address was entered as a billing email on the dashboard.',
      },
    });
  }

  /** Which of these mails were queued already (their dedupe keys), so a reporter can skip them. */
  told(keys: string[]): Promise<Set<string>> {
    return this.mail.queuedKeys(keys);
  }

  /** Queues a mail to one address (not the account's); a failure is logged, never thrown. */
  private async direct(accountId: string, to: string, request: Omit<MailRequest, 'accountId' | 'to'>): Promise<void> {
    try {
      await this.mail.enqueue({ ...request, accountId, to });
    } catch (error) {
      this.logger.error({ err: error, kind: request.kind, account: accountId }, 'mail could not be queued');
    }
  }

  /** Queues the mail to the account's address; a failure is logged, never thrown. */
  private async send(accountId: string, request: Omit<MailRequest, 'accountId' | 'to'>): Promise<void> {
    if (!this.mail.enabled) return;
    try {
      const to = await this.recipients(accountId, request.category);
      if (!to) {
        this.logger.info(
          { kind: request.kind, account: accountId },
          'mail not queued: the account has no email address',
        );
        return;
      }
      await this.mail.enqueue({ ...request, accountId, to });
    } catch (error) {
      this.logger.error({ err: error, kind: request.kind, account: accountId }, 'mail could not be queued');
    }
  }
}
