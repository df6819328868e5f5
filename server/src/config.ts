// Configuration from the environment (docs/operations.md lists every variable).
export interface Config {
  port: number;
  /** HOST: the HTTP address; default 127.0.0.1 with SANDBOX=on (the sandbox is for this machine), else 0.0.0.0. */
  host: string;
  databaseUrl?: string;
  dataDir: string;
  mqttUrl?: string;
  /** MQTT_PORT: the embedded broker's TCP port (default PORT + 10750, i.e. 18830); `off`: in-process only. */
  mqttPort: number | null;
  mqttPrefix: string;
  mqttSharedGroup?: string;
  mqttClientId?: string;
  simulator: boolean;
  publicUrl?: string;
  /** APP_ORIGINS (comma separated): the rider app's own origins, where payments may send customers back. */
  appOrigins?: string[];
  distDir: string;
  sandboxPublicKey: string;
  ejectTtlMs: number;
  smtpUrl?: string;
  mailFrom: string;
  outboxDir: string;
  wechatAppId?: string;
  wechatSecret?: string;
  /** SANDBOX=on|off: the sandbox providers, their routes and /demo-api (docs/operations.md). */
  sandbox: 'on' | 'off';
  /** NODE_ENV=production or SANDBOX=off: no demo, and productionRefusals() must be empty to start. */
  production: boolean;
  /** EMBED_SIGNING_KEY: HMAC key of the embed's one-time codes (sandbox: generated per installation). */
  embedSigningKey?: string;
  /** MQTT_HOST: the address the embedded broker listens on (default 127.0.0.1; 0.0.0.0 for cabinets on the network). */
  mqttHost: string;
  /** MQTT_USERNAME / MQTT_PASSWORD: the server's own credentials at an external broker (MQTT_URL). */
  mqttUsername?: string;
  mqttPassword?: string;
  /**
   * TRUST_PROXY: Fastify's trustProxy — which proxies' X-Forwarded-For to believe for the client address (rate
   * limits, captchas). Unset: none (the socket's address). `true`, a hop count, or addresses/CIDRs (comma-separated).
   */
  trustProxy: boolean | number | string[];
  /** STRIPE_WEBHOOK_SECRET: the card provider's webhook signing secret (required in production). */
  webhookSecret?: string;
}

const num = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d);

/** MQTT_PORT's default is PORT + this (18830 beside the default 8080), so two checkouts on two PORTs never share it. */
export const MQTT_PORT_OFFSET = 10_750;

/** The embedded broker's port when MQTT_PORT is unset: PORT + 10750; an ephemeral one when PORT is 0 or that is no port. */
export function defaultMqttPort(port: number): number {
  return port > 0 && port + MQTT_PORT_OFFSET <= 65_535 ? port + MQTT_PORT_OFFSET : 0;
}

function trustProxyOf(raw: string | undefined): Config['trustProxy'] {
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeProduction = env.NODE_ENV === 'production';
  const sandbox = env.SANDBOX || (nodeProduction ? 'off' : 'on');
  if (sandbox !== 'on' && sandbox !== 'off')
    throw new Error(`SANDBOX must be on or off, not ${JSON.stringify(sandbox)}`);
  if (nodeProduction && sandbox === 'on')
    throw new Error('NODE_ENV=production runs without the sandbox: unset SANDBOX or set SANDBOX=off');
  const port = num(env.PORT, 8080);
  return {
    port,
    // The sandbox mints tokens, shows the SMS codes and signs anyone in: with it on, this machine only unless HOST is set.
    host: env.HOST || (sandbox === 'on' ? '127.0.0.1' : '0.0.0.0'),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || './data/pglite',
    mqttUrl: env.MQTT_URL || undefined,
    mqttPort: env.MQTT_PORT === 'off' ? null : num(env.MQTT_PORT, defaultMqttPort(port)),
    mqttPrefix: env.MQTT_PREFIX || 'powerly',
    mqttSharedGroup: env.MQTT_SHARED_GROUP || undefined,
    mqttClientId: env.MQTT_CLIENT_ID || undefined,
    simulator: env.SIMULATOR !== 'off',
    publicUrl: env.PUBLIC_URL || undefined,
    appOrigins: env.APP_ORIGINS
      ? env.APP_ORIGINS.split(',')
          .map((o) => o.trim())
          .filter(Boolean)
      : undefined,
    distDir: env.DIST_DIR || 'dist',
    sandboxPublicKey: env.SANDBOX_PUBLIC_KEY || 'pk_sandbox_powerly',
    ejectTtlMs: num(env.EJECT_TTL_MS, 30_000),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Powerly <receipts@powerly.local>',
    outboxDir: env.MAIL_OUTBOX_DIR || './data/outbox',
    wechatAppId: env.WECHAT_APP_ID || undefined,
    wechatSecret: env.WECHAT_APP_SECRET || undefined,
    sandbox,
    production: nodeProduction || sandbox === 'off',
    embedSigningKey: env.EMBED_SIGNING_KEY || undefined,
    mqttHost: env.MQTT_HOST || '127.0.0.1',
    mqttUsername: env.MQTT_USERNAME || undefined,
    mqttPassword: env.MQTT_PASSWORD || undefined,
    trustProxy: trustProxyOf(env.TRUST_PROXY),
    webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
  };
}

/**
 * Why this cabinet link cannot start, or null. The embedded broker lives in one API process: it has no shared
 * subscriptions (a `$share/…` filter would match nothing there, and every cabinet event would go unheard) and no
 * other process can connect to it as the server (its network clients are cabinets). Several processes (a shared
 * group) need an external broker.
 */
export function linkRefusal(cfg: Pick<Config, 'mqttUrl' | 'mqttSharedGroup'>): string | null {
  if (cfg.mqttSharedGroup && !cfg.mqttUrl) {
    return 'MQTT_SHARED_GROUP needs MQTT_URL: the embedded broker serves one API process only (no shared subscriptions); point every process at an external broker (Mosquitto, EMQX) or unset MQTT_SHARED_GROUP';
  }
  return null;
}

/** Minimum length of EMBED_SIGNING_KEY in production (32 characters: e.g. `openssl rand -base64 32`). */
export const MIN_SIGNING_KEY_LENGTH = 32;

/**
 * What a production start (SANDBOX=off or NODE_ENV=production) lacks; main.ts refuses to start unless empty.
 * The demo (seed, simulator, demo agents, partner site) never starts in production, whatever else is set.
 */
export function productionRefusals(cfg: Config): string[] {
  if (!cfg.production) return [];
  const out: string[] = [];
  if (
    !cfg.embedSigningKey ||
    cfg.embedSigningKey.length < MIN_SIGNING_KEY_LENGTH ||
    cfg.embedSigningKey === 'powerly-dev-embed-signing-key'
  ) {
    out.push(
      `EMBED_SIGNING_KEY (a random secret of at least ${MIN_SIGNING_KEY_LENGTH} characters, the same on every API process)`,
    );
  }
  if (!cfg.webhookSecret) out.push("STRIPE_WEBHOOK_SECRET (the card provider's webhook signing secret)");
  if (cfg.mqttUrl) {
    const u = new URL(cfg.mqttUrl);
    if (!(cfg.mqttUsername && cfg.mqttPassword) && !(u.username && u.password)) {
      out.push(
        "MQTT_USERNAME and MQTT_PASSWORD (the server's credentials at the broker of MQTT_URL; the broker must authenticate every client)",
      );
    }
  }
  // Without MQTT_URL the embedded broker runs; it authenticates every client (cabinets with the credentials issued
  // by `npm run cabinet:credentials`) and listens on MQTT_HOST (127.0.0.1 unless set).
  return out;
}
