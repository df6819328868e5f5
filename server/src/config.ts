// Configuration from the environment (docs/operations.md lists every variable).
export interface Config {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  mqttUrl?: string;
  mqttPort: number | null;
  mqttPrefix: string;
  mqttSharedGroup?: string;
  mqttClientId?: string;
  simulator: boolean;
  publicUrl?: string;
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
}

const num = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const sandbox = env.SANDBOX || 'on';
  if (sandbox !== 'on' && sandbox !== 'off') throw new Error(`SANDBOX must be on or off, not ${JSON.stringify(sandbox)}`);
  return {
    port: num(env.PORT, 8080),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || './data/pglite',
    mqttUrl: env.MQTT_URL || undefined,
    mqttPort: env.MQTT_PORT === 'off' ? null : num(env.MQTT_PORT, 18830),
    mqttPrefix: env.MQTT_PREFIX || 'powerly',
    mqttSharedGroup: env.MQTT_SHARED_GROUP || undefined,
    mqttClientId: env.MQTT_CLIENT_ID || undefined,
    simulator: env.SIMULATOR !== 'off',
    publicUrl: env.PUBLIC_URL || undefined,
    distDir: env.DIST_DIR || 'dist',
    sandboxPublicKey: env.SANDBOX_PUBLIC_KEY || 'pk_sandbox_powerly',
    ejectTtlMs: num(env.EJECT_TTL_MS, 30_000),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Powerly <receipts@powerly.local>',
    outboxDir: env.MAIL_OUTBOX_DIR || './data/outbox',
    wechatAppId: env.WECHAT_APP_ID || undefined,
    wechatSecret: env.WECHAT_APP_SECRET || undefined,
    sandbox,
  };
}
