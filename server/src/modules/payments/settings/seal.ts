// The sealing of the payment methods' configuration keys an operator enters in the console (docs/payments.md
// "Switching on a method for an agent"). Every value is stored sealed: AES-256-GCM under a key derived
// (HKDF-SHA256) from PAYMENT_SETTINGS_KEY, a fresh 96-bit nonce per value, and the agent, method and key name as
// associated data (a sealed value copied to another agent's row, another method or another key does not open).
// With SANDBOX=on and no PAYMENT_SETTINGS_KEY the key is generated per installation (installation_secrets);
// production has no such fallback: without the variable the console cannot save keys (the environment's
// PAYMENT_METHODS still configures methods).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Queryable } from '../../../db/db.ts';
import type { Clock } from '../../../lib/clock.ts';
import { SecretsRepository } from '../../../secrets/repository.ts';

export const SETTINGS_KEY_MIN_LENGTH = 32;

/** The sealing key, or undefined when none is configured. */
export type SettingsKey = () => Promise<Buffer | undefined>;

const context = (agentId: string, method: string, name: string) => `${agentId}\n${method}\n${name}`;

export function deriveSettingsKey(master: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, 'powerly payment method settings', 'aes-256-gcm v1', 32));
}

export function sealValue(key: Buffer, agentId: string, method: string, name: string, value: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(context(agentId, method, name), 'utf8'));
  const ct = Buffer.concat([c.update(value, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64url'), ct.toString('base64url'), c.getAuthTag().toString('base64url')].join('.');
}

/** The value; throws when the sealed text was not made with this key for this agent, method and key name. */
export function openValue(key: Buffer, agentId: string, method: string, name: string, sealed: string): string {
  const [v, iv, ct, tag] = sealed.split('.');
  if (v !== 'v1' || !iv || !ct || !tag) throw new Error('not a sealed payment setting');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  d.setAAD(Buffer.from(context(agentId, method, name), 'utf8'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
}

/** The sealing key from `given` (PAYMENT_SETTINGS_KEY), or the installation's own with SANDBOX=on. */
export function paymentSettingsKey(o: { given?: string; db: Queryable; clock: Clock; sandbox: boolean }): SettingsKey {
  const given = o.given || undefined;
  if (given && given.length < SETTINGS_KEY_MIN_LENGTH)
    throw new Error(`PAYMENT_SETTINGS_KEY must be at least ${SETTINGS_KEY_MIN_LENGTH} characters`);
  let key: Promise<Buffer | undefined> | undefined;
  return () => {
    key ??= given
      ? Promise.resolve(deriveSettingsKey(given))
      : o.sandbox
        ? new SecretsRepository(o.db).get('sandbox.payment-settings-key', o.clock.now()).then(deriveSettingsKey)
        : Promise.resolve(undefined);
    return key.catch((err: unknown) => {
      key = undefined; // a database hiccup: try again next time
      throw err;
    });
  };
}
