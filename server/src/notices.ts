// The rider's notices (receipts and reminders, docs/payments.md "Receipts and reminders"), composed: their
// repository, this installation's VAPID keys (made once, kept in the secrets table) and the four channels.
import type { Agent } from 'node:https';
import type { Db } from './db/db.ts';
import type { SmsGateway } from './modules/auth/adapters.ts';
import type { LiveService } from './modules/live/service.ts';
import {
  EmailChannel,
  HostChannel,
  makeVapidKeys,
  SmsChannel,
  WebPushChannel,
  type VapidKeys,
} from './modules/notify/channels.ts';
import type { Mailer } from './modules/notify/mailer.ts';
import { NoticeService, type NoticeDeps } from './modules/notify/notices.ts';
import { NoticesRepository } from './modules/notify/notices-repository.ts';
import { SecretsRepository } from './secrets/repository.ts';

export async function noticeServices(
  d: Omit<NoticeDeps, 'repo' | 'channels'> & {
    db: Db;
    mailer: Mailer;
    sms: SmsGateway;
    live: Pick<LiveService, 'publish'>;
    vapidSubject?: string;
    pushAgent?: Agent;
  },
) {
  const repo = new NoticesRepository(d.db);
  const vapid = JSON.parse(
    await new SecretsRepository(d.db).get('notify.vapid-keys', d.clock.now(), makeVapidKeys),
  ) as VapidKeys;
  const webPush = new WebPushChannel({
    repo,
    clock: d.clock,
    vapid,
    subject: d.vapidSubject ?? 'mailto:receipts@powerly.local',
    agent: d.pushAgent,
  });
  const notices = new NoticeService({
    clock: d.clock,
    log: d.log,
    jobs: d.jobs,
    repo,
    orders: d.orders,
    payments: d.payments,
    channels: [webPush, new EmailChannel(d.mailer), new SmsChannel(d.sms), new HostChannel(d.live)],
  });
  return { repo, notices, vapidPublicKey: webPush.publicKey };
}
