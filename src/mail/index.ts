// Mail (docs/mail.md): the outbox a capability queues mail in, the notices it reports to, and the
// worker's job that sends what is due through SMTP.
export {
  MailService,
  MAIL_RETENTION_MS,
  RETRY_DELAYS_MS,
  type MailCategory,
  type MailOptions,
  type MailRequest,
  type MailView,
  type Queued,
  type SendReport,
} from './service.js';
export {
  Notices,
  type CreditFacts,
  type DisabledEndpointFacts,
  type EndpointFacts,
  type Recipients,
} from './notices.js';
export type { InvoiceFacts, PaymentFailedFacts } from './billing-notices.js';
export { compose, type Content } from './compose.js';
export type { MailTransport, MailParts } from './transport.js';
export { mailCapability, MAIL_INTERVAL_MS, type MailSetup } from './capability.js';
export { creditNotices } from './credits.js';
