// A queued mail's body as the outbox keeps it (JSON, sealed by the service): the composed text and
// HTML, the unsubscribe headers, the attachments in base64; and read back as the parts a transport sends.
import type { Attachment } from './service.js';
import type { MailParts } from './transport.js';

interface StoredBody {
  text: string;
  html: string;
  headers?: Record<string, string>;
  attachments?: { filename: string; contentType: string; content: string }[];
}

export function storedBody(
  composed: { text: string; html: string },
  unsubscribeUrl: string | null,
  attachments: readonly Attachment[] | undefined,
): StoredBody {
  return {
    text: composed.text,
    html: composed.html,
    // RFC 8058: mail clients offer a one-click unsubscribe that POSTs to the link.
    ...(unsubscribeUrl
      ? {
          headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        }
      : {}),
    ...(attachments?.length
      ? {
          attachments: attachments.map((a) => ({
            filename: a.filename,
            contentType: a.contentType,
            content: a.content.toString('base64'),
          })),
        }
      : {}),
  };
}

/** The parts to send of a stored body (opened). */
export function partsOf(to: string, subject: string, stored: string): MailParts {
  const body = JSON.parse(stored) as StoredBody;
  return {
    to,
    subject,
    text: body.text,
    html: body.html,
    headers: body.headers,
    attachments: body.attachments?.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: Buffer.from(a.content, 'base64'),
    })),
  };
}
