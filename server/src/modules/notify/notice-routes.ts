// The rider's notice settings and Web Push subscriptions (modules/notify/notices.ts).
import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { NoticePrefs, PushEndpointBody, PushKey, PushSubscriptionBody } from '#contract/returns.ts';
import { ok } from '../../lib/envelope.ts';
import { badRequest } from '../../lib/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { NoticesRepository, PrefsRow } from './notices-repository.ts';
import type { NoticeService } from './notices.ts';

const wire = (p: PrefsRow): NoticePrefs => ({
  channels: p.channels as NoticePrefs['channels'],
  kindsOff: p.kinds_off as NoticePrefs['kindsOff'],
  email: p.email,
  phone: p.phone,
  locale: p.locale as NoticePrefs['locale'],
  timeZone: p.time_zone,
  quietFrom: p.quiet_from,
  quietTo: p.quiet_to,
});

export default async function noticeRoutes(
  app: App,
  opts: { notices: NoticeService; repo: NoticesRepository; clock: Clock; vapidPublicKey: string },
) {
  app.get(
    '/cdb/notify/prefs',
    {
      schema: {
        tags: ['notify'],
        summary: "The rider's notice settings: channels, kinds turned off, quiet hours, language, time zone",
        response: { 200: Envelope(NoticePrefs) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(wire(await opts.notices.prefsOf(currentUser(req).id))),
  );

  app.post(
    '/cdb/notify/prefs',
    {
      schema: {
        tags: ['notify'],
        summary: "Sets the rider's notice settings (all fields)",
        body: NoticePrefs,
        response: { 200: Envelope(NoticePrefs) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const b = req.body;
      try {
        new Intl.DateTimeFormat('en', { timeZone: b.timeZone });
      } catch {
        throw badRequest('error.validation.field', { field: 'timeZone' });
      }
      if ((b.quietFrom === null) !== (b.quietTo === null))
        throw badRequest('error.validation.field', { field: 'quietTo' });
      if (b.channels.includes('email') && !b.email) throw badRequest('error.validation.field', { field: 'email' });
      if (b.channels.includes('sms') && !b.phone) throw badRequest('error.validation.field', { field: 'phone' });
      const row: PrefsRow = {
        user_id: currentUser(req).id,
        channels: b.channels,
        kinds_off: b.kindsOff,
        email: b.email,
        phone: b.phone,
        locale: b.locale,
        time_zone: b.timeZone,
        quiet_from: b.quietFrom,
        quiet_to: b.quietTo,
      };
      await opts.repo.savePrefs(row, opts.clock.now());
      return ok(wire(row));
    },
  );

  app.get(
    '/cdb/notify/push/key',
    {
      schema: {
        tags: ['notify'],
        summary: 'The VAPID public key to subscribe with (PushManager.subscribe applicationServerKey)',
        response: { 200: Envelope(PushKey) },
      },
    },
    async () => ok({ publicKey: opts.vapidPublicKey }),
  );

  app.post(
    '/cdb/notify/push/subscribe',
    {
      schema: {
        tags: ['notify'],
        summary: "Stores this browser's push subscription for the rider (PushSubscription.toJSON())",
        body: PushSubscriptionBody,
        response: { 200: Envelope(Type.Null()) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      await opts.repo.subscribe(
        currentUser(req).id,
        { endpoint: req.body.endpoint, p256dh: req.body.keys.p256dh, auth: req.body.keys.auth },
        opts.clock.now(),
      );
      return ok(null);
    },
  );

  app.post(
    '/cdb/notify/push/unsubscribe',
    {
      schema: {
        tags: ['notify'],
        summary: "Forgets this browser's push subscription",
        body: PushEndpointBody,
        response: { 200: Envelope(Type.Null()) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      await opts.repo.unsubscribe(currentUser(req).id, req.body.endpoint, opts.clock.now());
      return ok(null);
    },
  );
}
