// E-mail behind one small interface. Two real implementations:
//   SmtpMailer   — nodemailer over SMTP (SMTP_URL, e.g. smtps://user:pass@smtp.example.com:465)
//   OutboxMailer — the default: each message is written as an RFC 822 .eml file into a local folder
//                  (MAIL_OUTBOX_DIR), so a fresh install sends nothing to the outside world yet loses nothing.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter, type TransportOptions } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(msg: MailMessage): Promise<{ messageId: string }>;
  close?(): void;
}

export class SmtpMailer implements Mailer {
  readonly kind = 'smtp' as const;
  private readonly transport: Transporter;
  constructor(
    url: string,
    private readonly from: string,
    opts: { tlsRejectUnauthorized?: boolean } = {},
  ) {
    this.transport = nodemailer.createTransport(url, {
      tls: opts.tlsRejectUnauthorized === false ? { rejectUnauthorized: false } : undefined,
    } as TransportOptions);
  }
  async send(msg: MailMessage) {
    const info = (await this.transport.sendMail({ from: this.from, ...msg })) as { messageId: string };
    return { messageId: info.messageId };
  }
  close() {
    this.transport.close();
  }
}

export class OutboxMailer implements Mailer {
  readonly kind = 'outbox' as const;
  private readonly builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  constructor(
    readonly dir: string,
    private readonly from: string,
  ) {}
  async send(msg: MailMessage) {
    const info = (await this.builder.sendMail({ from: this.from, ...msg })) as { messageId: string; message: Buffer };
    await mkdir(this.dir, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}_${info.messageId.replace(/[^\w.-]/g, '')}.eml`;
    await writeFile(join(this.dir, name), info.message);
    return { messageId: info.messageId };
  }
}

export function mailerFromConfig(cfg: { smtpUrl?: string; mailFrom: string; outboxDir: string }): Mailer {
  return cfg.smtpUrl ? new SmtpMailer(cfg.smtpUrl, cfg.mailFrom) : new OutboxMailer(cfg.outboxDir, cfg.mailFrom);
}
