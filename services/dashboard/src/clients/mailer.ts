import { createTransport } from 'nodemailer';
import type { OutgoingMail } from '../domain/mail-messages';

/** SMTP with bounded waits: a relay that hangs fails the send rather than holding the page. */
function smtpTransport(smtpUrl: string) {
  return createTransport({
    url: smtpUrl,
    connectionTimeout: 5000,
    greetingTimeout: 5000,
    socketTimeout: 10_000,
  });
}

/**
 * Sends the dashboard's mails over SMTP (nodemailer): in the sandbox to the mail catcher `npm start` runs, in
 * production to the relay SMTP_URL names.
 */
export class Mailer {
  private readonly transport: ReturnType<typeof smtpTransport>;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = smtpTransport(smtpUrl);
  }

  /** Sends one mail; a relay that refuses it or cannot be reached throws MailNotSent. */
  async send(mail: OutgoingMail): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
    } catch (err) {
      throw new MailNotSent((err as Error).message);
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** A mail the relay did not take (its message names why; it carries no address or link). */
export class MailNotSent extends Error {
  constructor(reason: string) {
    super(`mail not sent: ${reason}`);
  }
}
