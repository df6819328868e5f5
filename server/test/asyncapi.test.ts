// docs/asyncapi.yaml is the cabinet protocol's machine-readable contract: every message the simulator and the
// server actually publish during rentals (eject, event-ack, command acks, heartbeat, popped, pop-failed, returned,
// status) is captured from the broker and validated against the payload schema of its channel, and every event
// the simulator publishes is one the server's parser accepts.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkEvent } from '../src/modules/cabinets/protocol.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
type Doc = {
  channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  components: { messages: Record<string, { name: string; payload: unknown }> };
};
const doc = parse(readFileSync(new URL('../../docs/asyncapi.yaml', import.meta.url), 'utf8')) as Doc;

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(doc as object, 'asyncapi');
/** channel (the topic's last segment) → validators of the messages it may carry. */
const channels = new Map(
  Object.entries(doc.channels).map(([name, ch]) => {
    const last = ch.address.split('/').at(-1)!;
    const messages = Object.values(ch.messages).map((m) => {
      const key = m.$ref.split('/').at(-1)!;
      return {
        name: doc.components.messages[key]!.name,
        validate: ajv.compile({ $ref: `asyncapi#/components/messages/${key}/payload` }),
      };
    });
    return [last, { name, messages }] as const;
  }),
);

/** The names of the messages of `channel` that accept `body` (an empty list: invalid). */
function matches(channel: string, body: unknown) {
  const ch = channels.get(channel);
  if (!ch) throw new Error(`no channel for topic segment ${channel}`);
  return ch.messages.filter((m) => m.validate(body)).map((m) => m.name);
}

let b: Built;
afterAll(async () => {
  await b?.close();
});

describe('the cabinet protocol against docs/asyncapi.yaml', () => {
  it('the document has a channel for every topic and its schemas reject a malformed message', () => {
    expect([...channels.keys()].sort()).toEqual(['acks', 'commands', 'events', 'status']);
    expect(
      matches('events', {
        v: 2,
        id: 'e1',
        ts: '2026-11-21T10:00:00.000Z',
        type: 'popped',
        commandId: 'c1',
        slot: 1,
        powerbankId: 'PB-1',
      }),
    ).toEqual(['popped']);
    expect(
      matches('events', { v: 2, id: 'e1', ts: '2026-11-21T10:00:00.000Z', type: 'popped', commandId: 'c1', slot: 0 }),
    ).toEqual([]);
    expect(matches('events', { v: 3, id: 'e1', ts: '2026-11-21T10:00:00.000Z', type: 'heartbeat', slots: [] })).toEqual(
      [],
    );
    expect(matches('commands', { v: 2, type: 'event-ack', ts: '2026-11-21T10:00:00.000Z' })).toEqual([]);
    // A box's read of a pickup code: documented, and accepted by the server's parser.
    const read = {
      v: 2,
      id: 'e2',
      ts: '2026-11-21T10:00:00.000Z',
      type: 'box-code-read',
      sn: 'MF-LIS-0001',
      code: 'P123',
    };
    expect(matches('events', read)).toEqual(['box-code-read']);
    expect(checkEvent(JSON.stringify(read)).ok).toBe(true);
    expect(matches('events', { ...read, code: '' })).toEqual([]);
    // A return slot reservation and its release: documented.
    const reserve = {
      v: 2,
      id: 'c2',
      type: 'slot-reserve',
      ts: '2026-11-21T10:00:00.000Z',
      ttlMs: 900000,
      slot: 3,
      powerbankId: 'PB-1',
      until: '2026-11-21T10:15:00.000Z',
    };
    expect(matches('commands', reserve)).toEqual(['slot-reserve']);
    expect(matches('commands', { ...reserve, until: null })).toEqual(['slot-reserve']);
    expect(matches('commands', { ...reserve, slot: 0 })).toEqual([]);
  });

  it('every message published in rentals, a failed eject and a return is valid', async () => {
    b = await build({ resendMs: 500 });
    const probe = b.connector.connect({ clientId: `asyncapi-${Date.now()}`, clean: true });
    await new Promise<void>((r) => probe.once('connect', () => r()));
    const seen: { topic: string; body: unknown }[] = [];
    probe.on('message', (topic, payload) => seen.push({ topic, body: JSON.parse(payload.toString()) as unknown }));
    await probe.subscribeAsync(`${b.prefix}/cabinets/#`, { qos: 1 });
    await cabinetsOnline(b, ['PWL-LIS-001', 'PWL-VNO-001']);

    const rent = async (token: string) => {
      const res = await b.app.inject({
        method: 'POST',
        url: `${API}/cdb/cabinet/useDepositToRent`,
        headers: { token },
        payload: { qrcode: 'PWL-LIS-001', stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
      });
      expect(res.json().code, res.body).toBe(0);
      return res.json().data.outTradeNo as string;
    };
    const zujie = async (id: string) =>
      Number((await b.db.query<{ zujie: number }>('select zujie from orders where id = $1', [id])).rows[0]!.zujie);

    // A rental that pops, is returned at another cabinet; a rental whose eject fails; heartbeats.
    const first = await rent(await touristToken(b.app, 'asyncapi-1'));
    await waitFor(async () => (await zujie(first)) === 1, 'popped');
    const pb = (await b.db.query<{ powerbank_id: string }>('select powerbank_id from orders where id = $1', [first]))
      .rows[0]!.powerbank_id;
    await b.fleet!.get('PWL-VNO-001')!.insert(pb);
    await waitFor(async () => (await zujie(first)) === 3, 'returned');
    b.fleet!.get('PWL-LIS-001')!.failNextEject();
    const second = await rent(await touristToken(b.app, 'asyncapi-2'));
    await waitFor(async () => (await zujie(second)) === 2, 'pop-failed');
    await b.fleet!.get('PWL-LIS-001')!.heartbeatNow();
    await waitFor(
      async () =>
        b.fleet!.get('PWL-LIS-001')!.unacknowledged.length === 0 &&
        b.fleet!.get('PWL-VNO-001')!.unacknowledged.length === 0,
      'every event acknowledged',
    );
    await waitFor(
      async () => seen.some((m) => m.topic.endsWith('/events') && (m.body as { type: string }).type === 'heartbeat'),
      'a heartbeat',
    );
    await probe.endAsync();

    const kinds = new Set<string>();
    for (const m of seen) {
      const channel = m.topic.split('/').at(-1)!;
      const ok = matches(channel, m.body);
      expect(ok, `${m.topic} ${JSON.stringify(m.body)}`).toHaveLength(1);
      kinds.add(`${channel}:${ok[0]}`);
      if (channel === 'events') expect(checkEvent(JSON.stringify(m.body)).ok, JSON.stringify(m.body)).toBe(true);
    }
    expect([...kinds].sort()).toEqual([
      'acks:commandAck',
      'commands:eject',
      'commands:event-ack',
      'events:heartbeat',
      'events:pop-failed',
      'events:popped',
      'events:returned',
      'status:status',
    ]);
  }, 120_000);
});
