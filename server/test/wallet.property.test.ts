// Model-based property test of the wallet with real concurrency, on PostgreSQL (DATABASE_URL) and on the embedded
// PGlite (in a data folder, so the restarted server opens the same database):
// random sequences of top-ups, rentals (useBalanceToRent), settlements (returns), withdrawals (paid or
// bounced) and refunds to the top-up card, across CNY, EUR and USD, run in concurrent batches, with replays of
// earlier requests. Mid-way the server is killed with requests in flight and a new one is built on the same
// schema; requests whose answer was lost are retried with their Idempotency-Key. Afterwards every ledger
// invariant holds and the balances equal the model's: no accepted operation was lost or applied twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { toMinor } from '#core/money.ts';
import { LEASE_MS } from '../src/jobs/runner.ts';
import { API, CABINET, CURRENCIES, opArb, userFees, type Cur, type Op, type Sent } from './wallet-model.ts';

const pg = process.env.DATABASE_URL;

describe(`wallet model (${pg ? 'PostgreSQL' : 'embedded PGlite'}, concurrent, with a restart)`, () => {
  it('keeps every invariant and applies each accepted operation exactly once', async () => {
    let runNo = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 5 }), { minLength: 6, maxLength: 10 }),
        fc.nat(),
        async (batches, killAt) => {
          runNo++;
          const dataDir = pg ? undefined : mkdtempSync(join(tmpdir(), 'powerly-wallet-model-'));
          let b: Built = await build({ keepSchema: true, dataDir });
          const schema = b.schema;
          const sent: Sent[] = [];
          try {
            await cabinetsOnline(b, ['PWL-SH-001', 'PWL-NYC-001']);
            const tokens = [await touristToken(b.app), await touristToken(b.app), await touristToken(b.app)];
            const deposits: Record<string, number> = {};
            for (const [c, id] of Object.entries(CABINET)) {
              const scan = await b.app.inject({
                method: 'POST',
                url: `${API}/cdb/cabinet/checkisok?url=${id}`,
                headers: { token: tokens[0]! },
              });
              deposits[c] = toMinor(scan.json().data.yajin, c);
            }
            const open = new Map<number, { orderId: string; cur: Cur; cabinet: string; pb?: string }>();
            const renting = new Set<number>();
            let seq = 0;
            let retried = 0;
            // Only the kill may lose an answer: a 5xx (or no answer) at any other time is a failure of the product (seed
            // 1628692760 met a deadlock between a rental and a withdrawal of one user), never a lost answer to absorb.
            let killing = false;
            const failed: string[] = [];

            const send = async (s: Sent) => {
              const headers: Record<string, string> = { token: s.token, 'idempotency-key': s.key };
              if (s.body) headers['content-type'] = 'application/x-www-form-urlencoded';
              try {
                const res = await b.app.inject({
                  method: s.method,
                  url: `${API}/${s.url}`,
                  headers,
                  payload: s.body ? new URLSearchParams(s.body).toString() : undefined,
                });
                if (res.statusCode >= 500) {
                  // the server failed mid-way: the answer is lost
                  if (!killing) failed.push(`${s.key} ${s.method} ${s.url}: ${res.statusCode} ${res.body}`);
                  return null;
                }
                return { status: res.statusCode, json: res.json() };
              } catch (err) {
                if (!killing) failed.push(`${s.key} ${s.method} ${s.url}: ${String(err)}`);
                return null;
              }
            };

            // Every answer, the first or a retry's, goes through here: a rental accepted only when its retry was answered
            // is as open as one accepted at once (the model lost track of such a rental and of its deposit).
            const answered = (s: Sent, answer: Sent['answer']) => {
              s.answer = answer;
              if (s.op.kind !== 'rent' || !answer) return; // a rent whose answer is lost keeps its user 'renting'
              const u = s.op.user;
              renting.delete(u);
              if (answer.json.code !== 0) return;
              expect(open.has(u), `user ${u}: a second open rental (${s.key})`).toBe(false);
              open.set(u, { orderId: String(answer.json.data!.outTradNo), cur: s.op.cur, cabinet: CABINET[s.op.cur]! });
            };

            const request = async (op: Op): Promise<void> => {
              const key = `r${runNo}-${seq++}`;
              let s: Sent | null = null;
              if (op.kind === 'topup') {
                s = {
                  op,
                  key,
                  token: tokens[op.user]!,
                  method: 'POST',
                  url: 'cdb/payment/multicurrency/recharge',
                  answer: null,
                  body: {
                    amount: String(op.amount),
                    currency: op.cur,
                    paymentId: 'card-sandbox',
                    stripeToken: await cardToken(b.app),
                  },
                };
              } else if (op.kind === 'withdraw') {
                const body: Record<string, string> = {
                  amount: String(op.amount),
                  currency: op.cur,
                  amountType: 'balance',
                };
                if (op.cur === 'CNY') {
                  Object.assign(body, {
                    refundType: '2',
                    checkNeedRemark: 'true',
                    remark: JSON.stringify({
                      name: 'Li',
                      bankCard: op.bounce ? '62220000000002' : '62220000000001',
                      phone: '13800138000',
                    }),
                  });
                } else {
                  const account =
                    op.cur === 'EUR'
                      ? {
                          paymentId: 'payout-sepa',
                          accountData: { accountHolder: 'A', iban: op.bounce ? 'LT000002' : 'LT000001', country: 'LT' },
                        }
                      : {
                          paymentId: 'payout-ach',
                          accountData: {
                            accountHolder: 'A',
                            routingNumber: '011000015',
                            accountNumber: op.bounce ? '90002' : '90001',
                            accountType: 'checking',
                          },
                        };
                  Object.assign(body, { refundType: '1', receiverAccount: JSON.stringify(account) });
                }
                s = {
                  op,
                  key,
                  token: tokens[op.user]!,
                  method: 'POST',
                  url: 'cdb/mine/tixian/create',
                  body,
                  answer: null,
                };
              } else if (op.kind === 'refund') {
                s = {
                  op,
                  key,
                  token: tokens[op.user]!,
                  method: 'POST',
                  url: 'cdb/mine/tixian/create',
                  answer: null,
                  body: { refundType: '0', amount: String(op.amount), currency: op.cur, autoAudit: '1' },
                };
              } else if (op.kind === 'rent') {
                // One rental per user in the model: a second rent must not pass this check while the first is in flight
                // or its answer lost (the model would lose track of the first and never return it).
                if (open.has(op.user) || renting.has(op.user)) return;
                renting.add(op.user);
                s = {
                  op,
                  key,
                  token: tokens[op.user]!,
                  method: 'GET',
                  url: `cdb/cabinet/useBalanceToRent?qrcode=${CABINET[op.cur]}`,
                  answer: null,
                };
              } else if (op.kind === 'replay') {
                const prev = sent.filter((x) => x.answer)[op.index % Math.max(1, sent.filter((x) => x.answer).length)];
                if (!prev) return;
                const again = await send(prev);
                if (again) expect(again.json, `replay of ${prev.key}`).toEqual(prev.answer!.json);
                return;
              } else if (op.kind === 'jobs') {
                await b.app.powerly.jobs.runDue();
                return;
              } else if (op.kind === 'settle') {
                const o = open.get(op.user);
                if (!o?.pb) return;
                open.delete(op.user);
                await b.app.inject({
                  method: 'POST',
                  url: `/demo-api/cabinets/${o.cabinet}/return`,
                  payload: { powerbankId: o.pb },
                });
                // The simulated cabinets live in the test's server process and die with it (a real cabinet keeps its
                // unacknowledged events across a server restart and re-sends them): a return counts once settled.
                await waitFor(
                  async () =>
                    (
                      await b.app.inject({
                        method: 'GET',
                        url: `${API}/cdb/mine/order/detail?orderId=${o.orderId}`,
                        headers: { token: tokens[op.user]! },
                      })
                    ).json().data.pJiesuanid === 1,
                  'settled',
                );
                return;
              }
              if (!s) return;
              sent.push(s);
              answered(s, await send(s));
            };

            // Opening balances (accepted top-ups like any other) so that rentals can hold their deposits.
            await Promise.all(
              [0, 1, 2].flatMap((u) =>
                (['CNY', 'USD'] as const).map((c) => request({ kind: 'topup', user: u, cur: c, amount: 200 })),
              ),
            );

            const kill = killAt % batches.length;
            for (let i = 0; i < batches.length; i++) {
              // Time passes between batches, as it does between people's taps: a power bank returned in one batch and
              // rented again in the next carries later cabinet timestamps (the frozen test clock would give them all
              // the same instant, which no cabinet reports and the return-ordering rules do not expect).
              if (i === kill) {
                // Kill the server with this batch in flight, then start a new one on the same schema. Rentals and returns
                // stay out of it: the simulated cabinets die with the server (see settle).
                killing = true;
                const inflight = Promise.all(
                  batches[i]!.filter((o) => o.kind !== 'rent' && o.kind !== 'settle').map((o) =>
                    request(o).catch(() => undefined),
                  ),
                );
                await new Promise((r) => setTimeout(r, 5));
                await b.close();
                await inflight;
                killing = false;
                b = await build({ schema, keepSchema: true, dataDir });
                b.clock.advance(5 * 60_000); // keys left 'started' by the dead process may be taken over
                await cabinetsOnline(b, ['PWL-SH-001', 'PWL-NYC-001']);
                // The clients retry every request whose answer was lost, with the same key.
                for (const s of sent.filter((x) => !x.answer)) {
                  retried++;
                  answered(s, await send(s));
                  expect(s.answer, `retry of ${s.key}`).not.toBeNull();
                }
              } else {
                await Promise.all(batches[i]!.map(request));
              }
              expect(failed.join('\n'), `batch ${i}: answers lost without a kill`).toBe('');
              // Rentals: wait for the eject answer (popped) before anything else happens to them.
              for (const [u, o] of open) {
                if (o.pb) continue;
                const r = await waitFor<{ code: number; data: { shebei: string } }>(
                  async () => {
                    const c = await b.app.inject({
                      method: 'POST',
                      url: `${API}/cdb/mine/order/check/${o.orderId}/YJ`,
                      headers: { token: tokens[u]! },
                    });
                    return c.json().code === 1 ? null : c.json();
                  },
                  `order ${o.orderId}`,
                  15_000,
                );
                if (r.code === 0) o.pb = r.data.shebei;
                else open.delete(u);
              }
            }
            // Settle everything: return open rentals, run the payout jobs.
            for (const [u, o] of open) {
              if (!o.pb) continue;
              await b.app.inject({
                method: 'POST',
                url: `/demo-api/cabinets/${o.cabinet}/return`,
                payload: { powerbankId: o.pb },
              });
              await waitFor(
                async () =>
                  (
                    await b.app.inject({
                      method: 'GET',
                      url: `${API}/cdb/mine/order/detail?orderId=${o.orderId}`,
                      headers: { token: tokens[u]! },
                    })
                  ).json().data.pJiesuanid === 1,
                'settled',
              );
            }
            // Time passes while the payouts travel, as it would: leases and retry backoffs are on the test clock, so a
            // job leased by the killed server, or retried after a failure (a payout's arrival that came before its
            // withdrawal stored the reference), comes due only when the clock moves.
            await waitFor(
              async () => {
                await b.app.powerly.jobs.runDue();
                const { rows } = await b.db.query<{ n: number }>(
                  `select count(*)::int as n from withdrawals where status = 'pending'`,
                );
                if (Number(rows[0]!.n) === 0) return true;
                b.clock.advance(LEASE_MS / 6);
                return false;
              },
              'payouts settled',
              30_000,
            );

            // Invariants.
            expect(await checkLedger(b.db)).toEqual([]);
            // The model: each accepted top-up credits once; each accepted withdrawal debits once unless it bounced;
            // each rental's fee is the only money a rental keeps.
            for (let u = 0; u < 3; u++) {
              for (const c of CURRENCIES) {
                let expected = 0;
                for (const s of sent) {
                  if (s.token !== tokens[u] || s.answer?.json.code !== 0) continue;
                  const op = s.op;
                  if (op.kind === 'topup' && op.cur === c) expected += toMinor(op.amount, c);
                  if (((op.kind === 'withdraw' && !op.bounce) || op.kind === 'refund') && op.cur === c)
                    expected -= toMinor(op.amount, c);
                }
                const wallets = (
                  await b.app.inject({
                    method: 'GET',
                    url: `${API}/cdb/user/wallet/new`,
                    headers: { token: tokens[u]! },
                  })
                ).json().data as { pCurrencyType: string; pBalance: number; pDepositAmount: number }[];
                const w = wallets.find((x) => x.pCurrencyType === c);
                const balance = w ? toMinor(w.pBalance, c) : 0;
                const fee = await userFees(b, tokens[u]!, c);
                expect(balance, `user ${u} ${c}`).toBe(expected - fee);
                expect(w ? w.pDepositAmount : 0).toBe(0);
              }
            }
            // Exactly one withdrawal per accepted withdrawal request, one top-up payment per accepted top-up.
            const acceptedW = sent.filter(
              (s) => s.url === 'cdb/mine/tixian/create' && s.answer?.json.code === 0,
            ).length;
            const acceptedT = sent.filter((s) => s.url.includes('recharge') && s.answer?.json.code === 0).length;
            const { rows: wn } = await b.db.query<{ n: number }>('select count(*)::int as n from withdrawals');
            const { rows: tn } = await b.db.query<{ n: number }>(
              `select count(*)::int as n from payments where purpose = 'wallet_topup' and status = 'captured'`,
            );
            expect(Number(wn[0]!.n)).toBe(acceptedW);
            expect(Number(tn[0]!.n)).toBe(acceptedT);
            if (process.env.WALLET_MODEL_LOG) {
              const rents = sent.filter((x) => x.op.kind === 'rent' && x.answer?.json.code === 0).length;
              console.info(
                `run ${runNo}: ${sent.length} requests, ${acceptedT} top-ups, ${acceptedW} withdrawals, ${rents} rentals, ${retried} retried after the restart`,
              );
            }
          } finally {
            await b.close().catch(() => undefined);
            if (dataDir) rmSync(dataDir, { recursive: true, force: true });
            if (pg) {
              const { default: pgm } = await import('pg');
              const c = new pgm.Client({ connectionString: pg });
              await c.connect();
              await c.query(`drop schema if exists ${schema} cascade`);
              await c.end();
            }
          }
        },
        // The embedded database runs every statement one at a time (and from a data folder): fewer runs.
      ),
      {
        numRuns: pg ? 4 : 2,
        endOnFailure: true,
        // Replays a failing run: WALLET_MODEL_SEED=<the seed fast-check printed>.
        ...(process.env.WALLET_MODEL_SEED ? { seed: Number(process.env.WALLET_MODEL_SEED) } : {}),
      },
    );
  }, 600_000);
});
