// Blocking a rider from the back office: who may (role × scope: a rider is in an agent's scope when they have an
// account with it), the audit entry, and the rider API refusing a blocked rider's rental and Wi-Fi package with the
// reason in the rider's language, until the rider is unblocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { fundedRider } from './ops/withdrawals.ts';

const API = '/cdb-app-api/v1/app';

type Op = 'read a rider of A' | 'block a rider of A' | 'unblock a rider of A';
//                               none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'read a rider of A': [401, 200, 200, 404, 200, 200, 403, 200, 403],
  'block a rider of A': [401, 200, 200, 404, 200, 403, 403, 403, 403],
  'unblock a rider of A': [401, 200, 200, 404, 200, 403, 403, 403, 403],
};

describe('blocking a rider', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  const riderOfA = async () => (await fundedRider(b.app, b.clock, 'agent-a', 100)).user.id;

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
  });
  afterAll(() => b.close());

  accessTable(TABLE, () => consoles, {
    'read a rider of A': async (c) => c.call('GET', `/riders/${await riderOfA()}`),
    'block a rider of A': async (c) => c.call('POST', `/riders/${await riderOfA()}/block`, { reason: 'table test' }),
    'unblock a rider of A': async (c) =>
      c.call('POST', `/riders/${await riderOfA()}/unblock`, { reason: 'table test' }),
  });

  it("refuses a blocked rider's rental and package, in their language, with the reason; unblocked, the calls go through again", async () => {
    const { token, user } = await fundedRider(b.app, b.clock, 'agent-a', 100);
    const rent = (lang: string) =>
      b.app.inject({
        method: 'GET',
        url: `${API}/cdb/cabinet/useBalanceToRent?qrcode=PWL-SH-001`,
        headers: { token, lang, 'idempotency-key': `b-${Math.random()}` },
      });
    const wifi = (lang: string) =>
      b.app.inject({
        method: 'POST',
        url: `${API}/chargenow/mifi/rent`,
        headers: { token, lang },
        payload: { paymentId: 'card-sandbox' },
      });
    const before = await rent('en-US');
    expect(before.json().msg).not.toMatch(/blocked/);

    const support = consoles.get('supportA')!;
    const blocked = await support.call('POST', `/riders/${user.id}/block`, {
      reason: 'card fraud reported by the bank',
    });
    expect(blocked.json()).toMatchObject({
      id: String(user.id),
      blocked: true,
      blockedReason: 'card fraud reported by the bank',
      blockedBy: 'supportA@example.com',
      agents: ['agent-a'],
    });
    // The same person again: as it is; someone else: 409 naming who.
    expect(
      (await support.call('POST', `/riders/${user.id}/block`, { reason: 'card fraud reported by the bank' }))
        .statusCode,
    ).toBe(200);
    const second = await consoles.get('adminA')!.call('POST', `/riders/${user.id}/block`, { reason: 'duplicate' });
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toContain('supportA@example.com');

    const en = await rent('en-US');
    expect(en.statusCode).toBe(422);
    expect(en.json().msg).toBe(
      'Your account is blocked, so you cannot rent or buy a package. Reason: card fraud reported by the bank. Please contact support.',
    );
    expect((await rent('pt-PT')).json().msg).toMatch(/^A sua conta está bloqueada.*card fraud reported by the bank/);
    expect((await rent('zh-CN')).json().msg).toMatch(/^您的账户已被冻结/);
    const w = await wifi('es-ES');
    expect(w.statusCode).toBe(422);
    expect(w.json().msg).toMatch(/^Tu cuenta está bloqueada/);

    const audit = (await consoles.get('adminA')!.call('GET', `/audit?entity=rider&entityId=${user.id}`)).json<{
      items: Array<{ action: string; reason: string }>;
    }>().items;
    expect(audit.map((a) => [a.action, a.reason])).toEqual([['rider.block', 'card fraud reported by the bank']]);

    const unblocked = await support.call('POST', `/riders/${user.id}/unblock`, {
      reason: 'the bank withdrew the report',
    });
    expect(unblocked.json()).toMatchObject({ blocked: false });
    const after = await rent('en-US');
    expect(after.json().msg).toBe(before.json().msg);
    expect((await wifi('en-US')).json().msg).not.toMatch(/blocked/);
  });
});
