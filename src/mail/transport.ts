// How a mail leaves: nodemailer over SMTP (FLIGHTSTATUS_SMTP_URL). nodemailer is the well-kept SMTP
// client of the Node world (STARTTLS, TLS, AUTH, MIME with attachments, pooled connections), so the
// service composes and sends through it instead of speaking SMTP itself.
import { createTransport, type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.js';

export interface MailParts {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: { filename: string; contentType: string; content: Buffer }[];
  headers?: Record<string, string>;
}

/** Sends one mail; rejects with the server's reason (never the credentials). */
export interface MailTransport {
  send(mail: MailParts): Promise<{ messageId: string }>;
  close(): void;
}

/** How long one SMTP conversation may take before it counts as a failure (retried later). */
const SMTP_TIMEOUT_MS = 30_000;

export function smtpTransport(config: MailConfig): MailTransport {
  const transporter: Transporter = createTransport(
    {
      url: config.smtpUrl,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    } as Parameters<typeof createTransport>[0],
    { from: config.from },
  );
  return {
    async send(mail) {
      const info = await transporter.sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        attachments: mail.attachments?.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: a.content,
        })),
        headers: mail.headers,
      });
      return { messageId: String(info.messageId) };
    },
    close: () => transporter.close(),
  };
}
