// `npm run serve`: what production starts, in order — configuration, the database and its migrations, the
// MQTT broker (embedded unless MQTT_URL) and the cabinet link, the API (with its job runner) and the built front
// end, then listen; a clean stop on SIGINT/SIGTERM. With SANDBOX=on (the default) the demo is added around it:
// seed, simulator, demo agents, partner site and the demo links (server/src/demo/). Production (SANDBOX=off or
// NODE_ENV=production) starts none of the demo and refuses to start without its secrets (config.ts).
import { mkdirSync } from 'node:fs';
import { buildApp } from './app.ts';
import { linkRefusal, loadConfig, productionRefusals } from './config.ts';
import { stripeSettingsFromEnv } from './config/stripe.ts';
import { payoutRailsFromEnv } from './config/payouts-rails.ts';
import { openDb } from './db/db.ts';
import { migrate } from './db/migrate.ts';
import { takeSessionLock, type SessionLock } from './db/session-lock.ts';
import { demoVendorEnv, prepareDemo } from './demo/index.ts';
import { systemClock } from './lib/clock.ts';
import { API_PREFIX } from './lib/route.ts';
import { externalBroker, startEmbeddedBroker, type EmbeddedBroker } from './mqtt/broker.ts';
import { signInSettingsFromEnv } from './modules/auth/signin-config.ts';
import { opsSettingsFromEnv } from './modules/staff/config.ts';
import { mediaStoreFromEnv } from './modules/media/s3.ts';
import { deskSettingsFromEnv } from './modules/rentals/ops-config.ts';
import { cabinetBrokerAuth } from './modules/cabinets/credentials.ts';
import { CabinetCredentialsRepository } from './modules/cabinets/credentials-repository.ts';
import { MqttCabinetLink } from './modules/cabinets/link.ts';
import { VendorEjectsRepository } from './modules/cabinets/vendor-ejects-repository.ts';
import { CabinetTokenSecrets, cabinetSecretsKey } from './modules/cabinets/token-secrets.ts';
import { a8RegistrationFromEnv, vendorGatewaysFromEnv } from './modules/cabinets/vendors/from-env.ts';
import { a8CabinetMay } from './modules/cabinets/vendors/a8/codec.ts';
import { WeChatApi } from './modules/content/wechat.ts';
import { mailerFromConfig } from './modules/notify/mailer.ts';
import { SandboxCardProvider } from './modules/payments/sandbox.ts';
import { parseMethodsConfig } from './modules/payments/methods/registry.ts';
import { loggerOptions } from './lib/logger.ts';
import { serveFrontEnd } from './static.ts';

async function main() {
  // 1. Configuration. Production (SANDBOX=off or NODE_ENV=production) refuses to start without its secrets.
  const cfg = loadConfig();
  const stripe = stripeSettingsFromEnv(process.env);
  const payoutRails = payoutRailsFromEnv(process.env);
  if (payoutRails.problems.length) throw new Error(payoutRails.problems.join('; '));
  const clock = systemClock;
  const refusals = productionRefusals(cfg);
  if (refusals.length)
    throw new Error(
      `production mode (SANDBOX=off / NODE_ENV=production), but these are missing: ${refusals.join('; ')}`,
    );
  const refusedLink = linkRefusal(cfg);
  if (refusedLink) throw new Error(refusedLink);

  // 2. Database and migrations.
  if (!cfg.databaseUrl) mkdirSync(cfg.dataDir, { recursive: true });
  const db = await openDb({ databaseUrl: cfg.databaseUrl, dataDir: cfg.dataDir });
  const applied = await migrate(db);

  // 3. Broker and cabinet link. The demo (SANDBOX=on, with the simulator) plays a cabinet of each vendor family:
  // their gateways run there with the demo's defaults where the environment sets none.
  const vendorEnv = cfg.production || !cfg.simulator ? process.env : demoVendorEnv(process.env);
  let broker: EmbeddedBroker | undefined;
  // The embedded broker serves one API process: a second one on the same database would hear none of the cabinets
  // connected to the first and publish their commands where they are not connected. Refused at start.
  let brokerLock: SessionLock | null = null;
  if (!cfg.mqttUrl && cfg.databaseUrl) {
    brokerLock = await takeSessionLock(cfg.databaseUrl, 'embedded-mqtt-broker');
    if (!brokerLock) {
      throw new Error(
        'another API process on this database runs the embedded MQTT broker; it serves one process only: stop that one, or run every process with MQTT_URL (an external broker) and MQTT_SHARED_GROUP',
      );
    }
  }
  // The embedded broker authenticates every network client (cabinets: npm run cabinet:credentials) on MQTT_HOST.
  const connector = cfg.mqttUrl
    ? externalBroker(cfg.mqttUrl, { username: cfg.mqttUsername, password: cfg.mqttPassword })
    : (broker = await startEmbeddedBroker({
        port: cfg.mqttPort,
        host: cfg.mqttHost,
        auth: {
          ...cabinetBrokerAuth(new CabinetCredentialsRepository(db), cfg.mqttPrefix),
          // Cabinets of the 0xA8 family (VENDOR_A8_PREFIX) also use their own topics.
          vendorMay: vendorEnv.VENDOR_A8_PREFIX ? a8CabinetMay(vendorEnv.VENDOR_A8_PREFIX) : undefined,
        },
      }));
  // The TCP family's per-cabinet token secrets, sealed under CABINET_SECRETS_KEY (the sandbox makes its own key).
  const tokenSecrets =
    process.env.CABINET_SECRETS_KEY || cfg.sandbox === 'on'
      ? new CabinetTokenSecrets(
          new CabinetCredentialsRepository(db),
          cabinetSecretsKey({ given: process.env.CABINET_SECRETS_KEY, db, clock, sandbox: cfg.sandbox === 'on' }),
        )
      : undefined;
  const gateways = vendorGatewaysFromEnv(vendorEnv, {
    connector,
    prefix: cfg.mqttPrefix,
    sharedGroup: cfg.mqttSharedGroup,
    log: console,
    now: () => clock.now().getTime(),
    tokenSecrets,
    ejects: new VendorEjectsRepository(db),
  });
  const link = new MqttCabinetLink(connector, {
    prefix: cfg.mqttPrefix,
    sharedGroup: cfg.mqttSharedGroup,
    clientId: cfg.mqttClientId,
    log: console,
    gateways,
  });

  // The demo (SANDBOX=on): seed and simulator before the app, which serves the simulator's control API.
  const demo = cfg.production ? undefined : await prepareDemo(cfg, db, connector, clock, { env: vendorEnv, gateways });

  // 4. The application.
  const app = await buildApp({
    db,
    clock,
    link,
    fleet: demo?.fleet,
    a8Registration: a8RegistrationFromEnv(vendorEnv),
    cabinetSecretsKey: process.env.CABINET_SECRETS_KEY,
    paymentSettingsKey: process.env.PAYMENT_SETTINGS_KEY,
    sandbox: new SandboxCardProvider(db, clock, cfg.sandboxPublicKey),
    ejectTtlMs: cfg.ejectTtlMs,
    jobPollMs: 500,
    mailer: mailerFromConfig(cfg),
    wechat: cfg.wechatAppId && cfg.wechatSecret ? new WeChatApi(cfg.wechatAppId, cfg.wechatSecret) : undefined,
    sandboxMode: cfg.sandbox,
    embedSigningKey: cfg.embedSigningKey,
    trustProxy: cfg.trustProxy,
    stripe: stripe.settings,
    stripeMissing: stripe.missing,
    paymentMethods: parseMethodsConfig(process.env.PAYMENT_METHODS),
    publicUrl: cfg.publicUrl,
    vapidSubject: process.env.VAPID_SUBJECT || (cfg.publicUrl?.startsWith('https://') ? cfg.publicUrl : undefined),
    appOrigins: cfg.appOrigins,
    signIn: signInSettingsFromEnv(process.env),
    ops: opsSettingsFromEnv(process.env),
    media: mediaStoreFromEnv(process.env),
    desk: deskSettingsFromEnv(process.env),
    logger: loggerOptions(process.env.LOG_LEVEL || 'warn'),
    payoutRails: payoutRails.rails,
  });
  const built = await serveFrontEnd(app, cfg.distDir);

  // 5. Listen.
  await app.listen({ port: cfg.port, host: cfg.host });
  await demo?.start(app, built);

  const base = cfg.publicUrl ?? `http://localhost:${cfg.port}`;
  const shown = await demo?.banner(base);
  const lines = [
    '',
    'Powerly is running',
    `  app          ${base}/${built ? '' : '   (not built: run `npm run build`)'}`,
    ...(shown?.pages ?? []),
    `  performance  ${base}${API_PREFIX}/embed/vitals/summary`,
    `  API          ${base}${API_PREFIX}/`,
    `  OpenAPI      ${base}${API_PREFIX}/openapi.json`,
    `  ops API      ${base}/ops-api/v1/openapi.json   (back office: ${base}/ops/)`,
    ...(shown?.sandbox ?? []),
    `  MQTT         ${connector.describe()}, topic prefix "${cfg.mqttPrefix}"`,
    `  database     ${cfg.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${cfg.dataDir}`}${applied.length ? `, ${applied.length} migration(s) applied` : ''}`,
    ...(shown?.scan ?? []),
    '',
  ];
  console.info(lines.join('\n'));

  // 6. Shutdown.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.info(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    try {
      await demo?.stop();
      await app.close();
      await broker?.close();
      await brokerLock?.release();
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
