import nodemailer from "nodemailer";
import type { Logger } from "../../log.js";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface SentMail extends Mail {
  sentAt: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** Newest first; only kept when no SMTP server is configured. */
  outbox(): SentMail[];
}

const OUTBOX_SIZE = 200;

/** Real SMTP when SMTP_URL is set; otherwise the log and an in-memory development outbox. */
export function createMailer(opts: { smtpUrl?: string; from: string; log: Logger }): Mailer {
  const kept: SentMail[] = [];
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: opts.from, ...mail });
        opts.log.info({ to: mail.to, subject: mail.subject }, "e-mail sent");
      },
      outbox: () => [],
    };
  }
  return {
    async send(mail) {
      kept.unshift({ ...mail, sentAt: new Date().toISOString() });
      kept.length = Math.min(kept.length, OUTBOX_SIZE);
      // No SMTP server: the message goes to the log so a developer can follow its link.
      opts.log.info({ to: mail.to, subject: mail.subject, text: mail.text }, "e-mail (no SMTP_URL set: not delivered)");
    },
    outbox: () => [...kept],
  };
}
