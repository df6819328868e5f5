// Alerts: a simulated cabinet goes offline, stays so past the rule's threshold and raises ONE alert however often
// the rules are evaluated; it comes back and the alert is resolved. Each opening and resolution reaches the rule's
// e-mail and its webhook, HMAC-signed; a webhook that fails is retried with backoff by its durable job, and every
// attempt is in the delivery log.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSignature } from '../src/modules/alerts/service.ts';
import type { MailMessage } from '../src/modules/notify/mailer.ts';
import { build, cabinetsOnline, waitFor, type Built } from './helper.ts';
import { signedIn } from './partners/fixtures.ts';

const SECRET = 'whsec-test-0123456789abcdef';
let b: Built;
const mails: MailMessage[] = [];
const hooks: { signature: string; body: string }[] = [];
let failNext = 1;
const server = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if (failNext > 0) {
      failNext--;
      res.writeHead(503).end();
      return;
    }
    hooks.push({ signature: String(req.headers['x-powerly-signature']), body });
    res.writeHead(204).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  b = await build({
    mailer: { kind: 'outbox', send: async (m) => (mails.push(m), { messageId: `m${mails.length}` }) },
  });
  await cabinetsOnline(b, ['PWL-VNO-001']);
});
afterAll(async () => {
  await b?.close();
  server.close();
});

const alertsOf = async (cabinet: string) =>
  (
    await b.db.query<{ id: string; state: string }>(
      'select id::text as id, state from alerts where subject = $1 order by id',
      [cabinet],
    )
  ).rows;
let signIns = 0;
/** A field technician of the platform, signed in now (the test moves time past the idle timeout). */
const staff = () =>
  signedIn(b, `tech${signIns++}@example.com`, { agentId: '*', role: 'field_technician', venueIds: [] });
const online = async (id: string) =>
  (await b.db.query<{ online: boolean }>('select online from cabinets where id = $1', [id])).rows[0]?.online;

describe('alerts', () => {
  it('a cabinet offline past the threshold raises one alert, delivered and signed; back online resolves it', async () => {
    const alerts = b.app.powerly.alerts;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const rule = await (
      await staff()
    ).call('POST', '/alerts/rules', {
      agentId: '*',
      kind: 'cabinet_offline',
      threshold: 5,
      emails: ['ops@example.com'],
      phones: [],
      webhookUrl: url,
      webhookSecret: SECRET,
      reason: 'night watch',
    });
    expect(rule.statusCode, rule.body).toBe(201);

    await alerts.evaluate();
    expect(await alertsOf('PWL-VNO-001')).toEqual([]);

    const sim = b.fleet!.get('PWL-VNO-001')!;
    await sim.stop();
    await waitFor(async () => (await online('PWL-VNO-001')) === false, 'cabinet offline');
    b.clock.advance(2 * 60_000);
    await alerts.evaluate();
    expect(await alertsOf('PWL-VNO-001')).toEqual([]); // offline for less than the threshold
    b.clock.advance(4 * 60_000);
    await alerts.evaluate();
    await alerts.evaluate();
    await alerts.evaluate();
    const raised = await alertsOf('PWL-VNO-001');
    expect(raised).toEqual([{ id: expect.any(String), state: 'open' }]);

    // The webhook answers 503 once: the delivery job fails, is retried after its backoff, and succeeds.
    await b.app.powerly.jobs.runDue();
    b.clock.advance(5_000);
    await b.app.powerly.jobs.runDue();
    expect(hooks).toHaveLength(1);
    const { signature, body } = hooks[0]!;
    const t = Number(/t=(\d+)/.exec(signature)![1]);
    expect(signature).toBe(webhookSignature(SECRET, t, body));
    expect(JSON.parse(body)).toMatchObject({
      id: raised[0]!.id,
      event: 'opened',
      kind: 'cabinet_offline',
      subject: 'PWL-VNO-001',
    });
    expect(mails.map((m) => [m.to, m.subject])).toEqual([['ops@example.com', 'Alert: cabinet offline at PWL-VNO-001']]);
    const ops = await staff();
    const log = (await ops.call('GET', `/alerts/${raised[0]!.id}/deliveries`)).json<{ items: { channel: string }[] }>()
      .items;
    expect(log.find((d) => d.channel === 'webhook')).toEqual(
      expect.objectContaining({ event: 'opened', status: 'delivered', attempts: 2 }),
    );
    const ack = await ops.call('POST', `/alerts/${raised[0]!.id}/acknowledge`, { reason: 'technician on the way' });
    expect(ack.json()).toMatchObject({ state: 'acknowledged' });
    await alerts.evaluate();
    expect(await alertsOf('PWL-VNO-001')).toEqual([{ id: raised[0]!.id, state: 'acknowledged' }]); // still one

    await sim.start();
    await waitFor(async () => (await online('PWL-VNO-001')) === true, 'cabinet online');
    await alerts.evaluate();
    expect(await alertsOf('PWL-VNO-001')).toEqual([{ id: raised[0]!.id, state: 'resolved' }]);
    await b.app.powerly.jobs.runDue();
    expect(hooks.map((h) => JSON.parse(h.body).event)).toEqual(['opened', 'resolved']);
    expect(mails).toHaveLength(2);
  });
});
