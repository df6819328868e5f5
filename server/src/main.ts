// `npm run serve`: migrations and seed, MQTT broker (embedded unless MQTT_URL), cabinet link, simulator,
// jobs, the API, and the built front end. Prints what it serves. Stops cleanly on SIGINT/SIGTERM.
import { mkdirSync } from 'node:fs';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDb } from './db/db.ts';
import { migrate } from './db/migrate.ts';
import { seed } from './db/seed.ts';
import { systemClock } from './lib/clock.ts';
import { API_PREFIX } from './lib/route.ts';
import { externalBroker, startEmbeddedBroker, type EmbeddedBroker } from './mqtt/broker.ts';
import { MqttCabinetLink } from './modules/cabinets/link.ts';
import { SandboxCardProvider } from './modules/payments/sandbox.ts';
import { SimulatorFleet } from './simulator/fleet.ts';
import { serveFrontEnd } from './static.ts';
import { mailerFromConfig } from './modules/notify/mailer.ts';
import { WeChatApi } from './modules/content/wechat.ts';
import { signInSettingsFromEnv } from './modules/auth/signin-config.ts';
import { startPartnerSite } from './partner-site.ts';

async function main() {
  const cfg = loadConfig();
  if (!cfg.databaseUrl) mkdirSync(cfg.dataDir, { recursive: true });
  const db = await openDb({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
  const applied = await migrate(db);
  await seed(db);

  let broker: EmbeddedBroker | undefined;
  const connector = cfg.mqttUrl ? externalBroker(cfg.mqttUrl) : (broker = await startEmbeddedBroker({ port: cfg.mqttPort }));
  const clock = systemClock;
  const fleet = cfg.simulator ? await SimulatorFleet.fromDb(db, { connector, prefix: cfg.mqttPrefix, clock, heartbeatMs: 15_000, ejectDelayMs: 800 }) : undefined;
  const app = await buildApp({
    db, clock, fleet,
    link: new MqttCabinetLink(connector, { prefix: cfg.mqttPrefix, sharedGroup: cfg.mqttSharedGroup, clientId: cfg.mqttClientId, log: console }),
    sandbox: new SandboxCardProvider(db, clock, cfg.sandboxPublicKey),
    ejectTtlMs: cfg.ejectTtlMs,
    jobPollMs: 500,
    mailer: mailerFromConfig(cfg),
    wechat: cfg.wechatAppId && cfg.wechatSecret ? new WeChatApi(cfg.wechatAppId, cfg.wechatSecret) : undefined,
    sandboxMode: cfg.sandbox,
    signIn: signInSettingsFromEnv(process.env),
    logger: { level: process.env.LOG_LEVEL || 'warn' },
  });
  const built = await serveFrontEnd(app, cfg.distDir);
  await app.listen({ port: cfg.port, host: cfg.host });
  await fleet?.start();

  // The embed demo: a partner website on another origin (PORT+1) and the agents whose exact origins may
  // frame the widget (the venue page on this origin, the partner site on the other).
  const partnerPort = Number(process.env.DEMO_PARTNER_PORT) || cfg.port + 1;
  const partner = built && process.env.DEMO_PARTNER_PORT !== 'off' ? await startPartnerSite(cfg.distDir, partnerPort, cfg.host) : undefined;
  const originsOf = (port: number, extra?: string) => [`http://localhost:${port}`, `http://127.0.0.1:${port}`, ...(extra ? [new URL(extra).origin] : [])];
  await app.powerly.embed.saveAgent({ id: 'demo-venue', name: 'Demo venue site', origins: originsOf(cfg.port, cfg.publicUrl) });
  await app.powerly.embed.saveAgent({ id: 'demo-partner', name: 'Demo partner site', origins: originsOf(partnerPort) });
  // The native-app demo frames its web-view on this origin; a real app opens it top-level (no origins needed).
  await app.powerly.embed.saveAgent({ id: 'demo-app', name: 'Demo native app', origins: originsOf(cfg.port, cfg.publicUrl) });

  const base = cfg.publicUrl ?? `http://localhost:${cfg.port}`;
  const cabinets = (await db.query<{ id: string; city: string; currency: string }>(
    'select c.id, v.city, v.currency from cabinets c join venues v on v.id = c.venue_id order by c.id',
  )).rows;
  const lines = [
    '',
    'Powerly is running',
    `  app          ${base}/${built ? '' : '   (not built: run `npm run build`)'}`,
    `  demo page    ${base}/demo/${fleet ? '' : '   (simulator off)'}`,
    `  venue site   ${base}/demo/venue.html   (the <powerly-rent> custom element)`,
    ...(partner ? [`  partner site http://localhost:${partnerPort}/demo/partner/   (another origin: loader + iframe)`] : []),
    `  native host  ${base}/demo/native.html   (a web-view host with a signed one-time code)`,
    `  web-view     ${base}/#/aboutUsApp/pt-BR   ${base}/#/contactUsApp/zh-CN`,
    `  performance  ${base}${API_PREFIX}/embed/vitals/summary`,
    `  API          ${base}${API_PREFIX}/`,
    `  OpenAPI      ${base}${API_PREFIX}/openapi.json`,
    ...(cfg.sandbox === 'on' ? [`  sandbox pay  ${base}/sandbox-pay/v1/tokens   (public key ${cfg.sandboxPublicKey})`] : []),
    ...(fleet && cfg.sandbox === 'on' ? [`  demo API     ${base}/demo-api/cabinets`] : []),
    `  MQTT         ${connector.describe()}, topic prefix "${cfg.mqttPrefix}"`,
    `  database     ${cfg.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${cfg.dataDir}`}${applied.length ? `, ${applied.length} migration(s) applied` : ''}`,
    '  scan a cabinet:',
    ...cabinets.map((c) => `    ${c.id.padEnd(12)} ${c.city.padEnd(9)} ${c.currency}  ${base}/#/?qrcode=${c.id}`),
    '',
  ];
  console.info(lines.join('\n'));

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.info(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    try {
      await fleet?.stop();
      await partner?.site.close();
      await app.close();
      await broker?.close();
      await db.close();
      process.exit(0);
    } catch (err) {
      console.error(err);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error('Powerly failed to start:', err);
  process.exit(1);
});
