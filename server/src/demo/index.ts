// The demo, wired by main.ts only when SANDBOX=on (the default; `npm start`): the seed venues and cabinets,
// the cabinet simulator fleet (SIMULATOR≠off) with its control API (/demo-api, registered by buildApp when a
// fleet is given), the demo agents allowed to frame the embed, the partner site on another origin, and the demo
// links printed at start-up. Production (SANDBOX=off) starts none of this.
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { seed } from '../db/seed.ts';
import type { Clock } from '../lib/clock.ts';
import type { MqttConnector } from '../mqtt/broker.ts';
import type { PowerlyApp } from '../app.ts';
import { Liveness } from '../modules/cabinets/liveness.ts';
import { CabinetsRepository } from '../modules/cabinets/repository.ts';
import { seedCoupons } from './coupons.ts';
import { startPartnerSite } from './partner-site.ts';
import { SimulatorFleet } from './simulator/fleet.ts';
import type { VendorGateway } from '../modules/cabinets/vendors/gateway.ts';
import { prepareDemoVendors } from './vendors/index.ts';

export { demoVendorEnv } from './vendors/index.ts';

/** The demo's platform owner of the back office. */
export const DEMO_OWNER = 'owner@powerly.local';

export interface Demo {
  /** The simulated cabinets (when SIMULATOR≠off): pass to buildApp for the demo control API. */
  fleet?: SimulatorFleet;
  /** Once the app listens: the simulator connects, the partner site starts, the demo agents are saved. */
  start(app: PowerlyApp, built: boolean): Promise<void>;
  /** The demo's lines of the start-up banner, by where they go in it. */
  banner(base: string): Promise<{ pages: string[]; sandbox: string[]; scan: string[] }>;
  stop(): Promise<void>;
}

export async function prepareDemo(
  cfg: Config,
  db: Db,
  connector: MqttConnector,
  clock: Clock,
  vendor: { env: NodeJS.ProcessEnv; gateways: VendorGateway[] },
): Promise<Demo> {
  await seed(db);
  const fleet = cfg.simulator
    ? await SimulatorFleet.fromDb(db, {
        connector,
        prefix: cfg.mqttPrefix,
        clock,
        heartbeatMs: 15_000,
        ejectDelayMs: 800,
      })
    : undefined;
  // One cabinet of each vendor family, played by its simulator through its gateway (demo/vendors/).
  const vendors = fleet
    ? await prepareDemoVendors({ db, clock, connector, ...vendor, heartbeatMs: 15_000 })
    : undefined;
  const partnerPort = Number(process.env.DEMO_PARTNER_PORT) || cfg.port + 1;
  let partner: Awaited<ReturnType<typeof startPartnerSite>> | undefined;
  /** The seeded back-office owner's first passkey link (only on the start that made the owner). */
  let ownerLink: string | undefined;

  return {
    fleet,
    async start(app, built) {
      await fleet?.start();
      await vendors?.start((id) => app.powerly.fleet.cabinets.issueCredentials(id));
      for (const [id, c] of vendors?.cabinets ?? []) fleet?.vendors.set(id, c);
      // The embed demo: a partner website on another origin (PORT+1) and the agents whose exact origins may
      // frame the widget (the venue page on this origin, the partner site on the other).
      partner =
        built && process.env.DEMO_PARTNER_PORT !== 'off'
          ? await startPartnerSite(cfg.distDir, partnerPort, cfg.host, cfg.publicUrl)
          : undefined;
      const originsOf = (port: number, extra?: string) => [
        `http://localhost:${port}`,
        `http://127.0.0.1:${port}`,
        ...(extra ? [new URL(extra).origin] : []),
      ];
      await app.powerly.embed.saveAgent({
        id: 'demo-venue',
        name: 'Demo venue site',
        origins: originsOf(cfg.port, cfg.publicUrl),
      });
      await app.powerly.embed.saveAgent({
        id: 'demo-partner',
        name: 'Demo partner site',
        origins: originsOf(partnerPort),
      });
      // The native-app demo frames its web-view on this origin; a real app opens it top-level (no origins needed).
      await app.powerly.embed.saveAgent({
        id: 'demo-app',
        name: 'Demo native app',
        origins: originsOf(cfg.port, cfg.publicUrl),
      });
      // The back office's platform owner (made once, when nobody is staff yet).
      const token = await app.powerly.staff.seedOwner(DEMO_OWNER, 'Demo owner');
      ownerLink = token ? `/ops/#/invitation?token=${encodeURIComponent(token)}` : undefined;
      await seedCoupons(app.powerly.coupons, clock);
    },
    async banner(base) {
      const cabinets = await new CabinetsRepository(db, new Liveness(clock)).all();
      const width = Math.max(12, ...cabinets.map((c) => c.id.length));
      return {
        pages: [
          `  demo page    ${base}/demo/${fleet ? '' : '   (simulator off)'}`,
          `  venue site   ${base}/demo/venue.html   (the <powerly-rent> custom element)`,
          ...(partner
            ? [`  partner site http://localhost:${partnerPort}/demo/partner/   (another origin: loader + iframe)`]
            : []),
          `  native host  ${base}/demo/native.html   (a web-view host with a signed one-time code)`,
          `  web-view     ${base}/#/aboutUsApp/pt-BR   ${base}/#/contactUsApp/zh-CN`,
          `  back office  ${base}/ops/   (owner ${DEMO_OWNER}: "Single sign-on" at the sandbox issuer, or a passkey)`,
          ...(ownerLink ? [`  owner passkey ${base}${ownerLink}   (creates the owner's first passkey; once)`] : []),
        ],
        sandbox: [
          `  sandbox pay  ${base}/sandbox-pay/v1/tokens   (public key ${cfg.sandboxPublicKey})`,
          ...(fleet ? [`  demo API     ${base}/demo-api/cabinets`] : []),
        ],
        scan: [
          '  scan a cabinet:',
          ...cabinets.map(
            (c) => `    ${c.id.padEnd(width)} ${c.city.padEnd(9)} ${c.currency}  ${base}/?qrcode=${c.id}`,
          ),
        ],
      };
    },
    async stop() {
      await vendors?.stop();
      await fleet?.stop();
      await partner?.site.close();
    },
  };
}
