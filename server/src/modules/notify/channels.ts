// The ways a rental notice reaches a rider: Web Push (the `web-push` library: the payload encrypted for the
// subscription (RFC 8291), VAPID-signed (RFC 8292), with a Topic per notice so a push service that still holds an
// earlier attempt replaces it), e-mail (the Mailer), SMS (the sign-in SMS gateway) and the embed's host page (the
// live stream; the widget passes it on as a host event). Each answers a reference or throws.
import type { Agent } from 'node:https';
import webpush from 'web-push';
import type { Clock } from '../../lib/clock.ts';
import type { SmsGateway } from '../auth/adapters.ts';
import type { LiveService } from '../live/service.ts';
import type { Mailer } from './mailer.ts';
import type { ComposedNotice, NoticeChannel } from './notices.ts';
import type { NoticesRepository, PrefsRow } from './notices-repository.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** A new VAPID key pair (P-256), stored once per installation (SecretsRepository). */
export const makeVapidKeys = () => JSON.stringify(webpush.generateVAPIDKeys());

export class WebPushChannel implements NoticeChannel {
  readonly id = 'push' as const;
  constructor(
    private readonly d: {
      repo: NoticesRepository;
      clock: Clock;
      vapid: VapidKeys;
      /** The contact the push services see (an https URL or mailto:). */
      subject: string;
      /** TLS agent for the push services (a private CA, a proxy). */
      agent?: Agent;
    },
  ) {}

  get publicKey() {
    return this.d.vapid.publicKey;
  }

  async send(to: { userId: number }, n: ComposedNotice) {
    const subs = await this.d.repo.subscriptions(to.userId);
    if (!subs.length) return null;
    const payload = JSON.stringify({ title: n.title, body: n.body, tag: n.tag, path: n.path, kind: n.kind });
    let sent = 0;
    let lastError: unknown;
    for (const s of subs) {
      try {
        await webpush.sendNotification({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, payload, {
          vapidDetails: {
            subject: this.d.subject,
            publicKey: this.d.vapid.publicKey,
            privateKey: this.d.vapid.privateKey,
          },
          TTL: 4 * 3600,
          urgency: n.kind === 'receipt' ? 'normal' : 'high',
          topic: `n${n.noticeId}`,
          agent: this.d.agent,
        });
        sent++;
      } catch (err) {
        const status = (err as { statusCode?: number }).statusCode;
        // The subscription is gone (the rider revoked it, the browser dropped it): never used again.
        if (status === 404 || status === 410) await this.d.repo.gone(s.id, this.d.clock.now());
        else lastError = err;
      }
    }
    if (!sent && lastError) throw lastError;
    return `push:${sent}`;
  }
}

export class EmailChannel implements NoticeChannel {
  readonly id = 'email' as const;
  constructor(private readonly mailer: Mailer) {}
  async send(to: { prefs: PrefsRow }, n: ComposedNotice) {
    if (!to.prefs.email) return null;
    return (await this.mailer.send({ to: to.prefs.email, subject: n.title, text: n.body })).messageId;
  }
}

export class SmsChannel implements NoticeChannel {
  readonly id = 'sms' as const;
  constructor(private readonly sms: SmsGateway) {}
  async send(to: { prefs: PrefsRow }, n: ComposedNotice) {
    if (!to.prefs.phone) return null;
    return (await this.sms.send(to.prefs.phone, `${n.title}: ${n.body}`)).ref;
  }
}

/** The rider's open app screens (and an embed's host page, as a host event) through the live stream. */
export class HostChannel implements NoticeChannel {
  readonly id = 'host' as const;
  constructor(private readonly live: Pick<LiveService, 'publish'>) {}
  async send(to: { userId: number }, n: ComposedNotice) {
    await this.live.publish(to.userId, {
      kind: 'notice',
      orderId: n.orderId,
      notice: { kind: n.kind, tag: n.tag, title: n.title, body: n.body },
    });
    return null;
  }
}
