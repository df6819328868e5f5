// The back office's configuration from the environment (docs/operations.md "Back office").
import type { SessionSettings } from './sessions.ts';
import { ssoSettingsFromEnv, type SsoSettings } from './sso.ts';

const minutes = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : d);

export function opsSettingsFromEnv(env: NodeJS.ProcessEnv): {
  origin?: string;
  sso?: SsoSettings;
  sessions: SessionSettings;
} {
  return {
    origin: env.OPS_ORIGIN || undefined,
    sso: ssoSettingsFromEnv(env),
    sessions: {
      idleMs: minutes(env.OPS_IDLE_MINUTES, 30) * 60_000,
      maxMs: minutes(env.OPS_SESSION_HOURS, 12) * 3_600_000,
    },
  };
}
