// Outgoing e-mail: one small typed client over nodemailer's SMTP transport. SMTP_URL says where
// (smtp:// or smtps://, credentials in the URL), SMTP_FROM who sends. nodemailer is loaded with the first
// message, not at start: an instance that sends no mail (most of them, and every one without SMTP_URL)
// does not carry it (~4 MB resident).
import type { Transporter } from 'nodemailer';

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
  let transport: Promise<Transporter> | null = null;
  const open = () =>
    (transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        url: options.url,
        // nodemailer waits minutes by default; a mail server that does not answer in seconds is down.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      }),
    ));
  return {
    async send(mail) {
      await (await open()).sendMail({ from: options.from, ...mail });
    },
    close() {
      // A transport that never opened has nothing to close.
      void transport?.then(
        (t) => t.close(),
        () => {},
      );
    },
  };
}
