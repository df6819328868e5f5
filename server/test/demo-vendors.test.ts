// The demo's vendor cabinets (server/src/demo/vendors/), as `npm start` runs them: with the demo's defaults, one
// cabinet of each family is registered at the Vilnius venue and played by its family's simulator through its
// gateway, online, listed by the demo's control API, rented from and returned to end to end.
import { afterEach, describe, expect, it } from 'vitest';
import { demoVendorEnv, prepareDemoVendors } from '../src/demo/vendors/index.ts';
import { vendorGatewaysFromEnv } from '../src/modules/cabinets/vendors/from-env.ts';
import type { VendorGateway } from '../src/modules/cabinets/vendors/gateway.ts';
import { CabinetCredentialsRepository } from '../src/modules/cabinets/credentials-repository.ts';
import { CabinetTokenSecrets, cabinetSecretsKey } from '../src/modules/cabinets/token-secrets.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const quiet = {
  info() {},
  warn() {},
  error(...a: unknown[]) {
    console.error(...a);
  },
};
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close().catch(() => undefined);
});

const order = async (b: Built, id: string) =>
  (
    await b.db.query<{ zujie: number; settled: boolean; powerbank_id: string | null }>(
      'select zujie, settled, powerbank_id from orders where id = $1',
      [id],
    )
  ).rows[0]!;

describe('the demo plays one cabinet of each vendor family', () => {
  it('both online and listed by the demo API; each rents (popped) and takes the power bank back (settled)', async () => {
    const env = demoVendorEnv({});
    expect(env).toMatchObject({ VENDOR_A8_PREFIX: 'VL-', VENDOR_TCP_PORT: '0', VENDOR_TCP_HOST: '127.0.0.1' });
    let gateways: VendorGateway[] = [];
    const b = await build({
      gateways: ({ connector, clock, db }) =>
        (gateways = vendorGatewaysFromEnv(env, {
          connector,
          prefix: 'demo-vendors',
          log: quiet,
          now: () => clock.now().getTime(),
          tokenSecrets: new CabinetTokenSecrets(
            new CabinetCredentialsRepository(db),
            cabinetSecretsKey({ db, clock, sandbox: true }),
          ),
        })),
    });
    open.push(b);
    const vendors = await prepareDemoVendors({
      db: b.db,
      clock: b.clock,
      connector: b.connector,
      env,
      gateways,
      heartbeatMs: 60_000,
    });
    open.push({ close: () => vendors.stop() });
    await vendors.start((id) => b.app.powerly.fleet.cabinets.issueCredentials(id));
    for (const [id, c] of vendors.cabinets) b.fleet!.vendors.set(id, c);
    const ids = ['VL-860602069165357', 'BX-VNO01'];
    await cabinetsOnline(b, ids);
    const { rows } = await b.db.query<{ id: string; vendor: string }>(
      'select id, vendor from cabinets where id = any($1) order by id',
      [ids],
    );
    expect(rows).toEqual([
      { id: 'BX-VNO01', vendor: 'tcp60' },
      { id: 'VL-860602069165357', vendor: 'a8' },
    ]);

    const listed = (await b.app.inject({ method: 'GET', url: '/demo-api/cabinets' })).json().data.cabinets as {
      cabinetId: string;
      online: boolean;
      slots: { powerbankId: string | null }[];
    }[];
    for (const id of ids) {
      const c = listed.find((x) => x.cabinetId === id);
      expect(c, id).toMatchObject({ online: true });
      expect(c!.slots.filter((s) => s.powerbankId)).toHaveLength(4);
    }

    for (const id of ids) {
      const res = await b.app.inject({
        method: 'POST',
        url: `${API}/cdb/cabinet/useDepositToRent`,
        headers: { token: await touristToken(b.app, `demo-${id}`) },
        payload: { qrcode: id, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
      });
      expect(res.json().code, res.body).toBe(0);
      const tradeNo: string = res.json().data.outTradeNo;
      await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 1, `${id}: the rental started (popped)`);
      const bank = (await order(b, tradeNo)).powerbank_id!;
      expect(b.fleet!.held(bank)).toBe(false);
      b.clock.advance(30 * 60_000);
      const back = await b.app.inject({
        method: 'POST',
        url: `/demo-api/cabinets/${id}/return`,
        payload: { powerbankId: bank },
      });
      expect(back.statusCode, back.body).toBe(200);
      await waitFor(async () => (await order(b, tradeNo)).settled, `${id}: the return settled the rental`);
      expect(b.fleet!.demoCabinet(id)!.holds(bank)).toBe(true);
    }
  }, 90_000);
});
