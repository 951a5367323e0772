// Outgoing e-mail: one small typed client over nodemailer's SMTP transport. SMTP_URL says where
// (smtp:// or smtps://, credentials in the URL), SMTP_FROM who sends.
import { createTransport } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects with its refusal or a network failure. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export function createMailer(options: { url: string; from: string }): Mailer {
  const transport = createTransport({
    url: options.url,
    // nodemailer waits minutes by default; a mail server that does not answer in seconds is down.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, ...mail });
    },
    close: () => transport.close(),
  };
}
