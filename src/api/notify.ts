// Receipts and reminders: the rider's settings and this browser's push subscription.
import { api } from './client.ts';
import type { NoticePrefs, PushKey } from '../contract/returns.ts';

export type { NoticePrefs };

export function getNoticePrefs(): Promise<NoticePrefs> {
  return api.get<NoticePrefs>('cdb/notify/prefs');
}

/** POST cdb/notify/prefs (JSON, all fields). */
export function saveNoticePrefs(p: NoticePrefs): Promise<NoticePrefs> {
  return api.post<NoticePrefs>('cdb/notify/prefs', { body: p, json: true });
}

export function pushKey(): Promise<PushKey> {
  return api.get<PushKey>('cdb/notify/push/key');
}

/** POST cdb/notify/push/subscribe — PushSubscription.toJSON(). */
export function savePushSubscription(s: { endpoint: string; keys: { p256dh: string; auth: string } }): Promise<null> {
  return api.post<null>('cdb/notify/push/subscribe', { body: s, json: true });
}
