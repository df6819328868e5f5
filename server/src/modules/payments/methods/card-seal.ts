// Card fields kept between the payer endpoint and the paying call (Flutterwave's direct card charge takes them from
// our server, docs/payments.md "Card data"). They are never stored in clear: the payer token holds them sealed with
// AES-256-GCM under a key derived (HKDF-SHA256) from the method's own secrets for that agent (the Flutterwave secret
// key and encryption key), a fresh 96-bit nonce per token, and the token's id, user and provider as additional
// authenticated data (a sealed card moved to another row, user or agent does not open). The token lives minutes
// (CARD_TOKEN_TTL_MS) and its sealed card is deleted when it is used (repository.ts useToken) or swept once expired.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { AdapterDefinition } from './adapter.ts';

/** How long a payer token with a card may wait for its paying call. */
export const CARD_TOKEN_TTL_MS = 10 * 60_000;

/** The card fields as the direct charge needs them. */
export interface CardFields {
  number: string;
  expMonth: string;
  expYear: string;
  cvv: string;
}

/** What the token's row holds instead of the card. */
export interface SealedCard {
  v: 1;
  /** base64: 12-byte nonce, ciphertext, 16-byte tag. */
  iv: string;
  ct: string;
  tag: string;
}

/** The AAD binding a sealed card to its token. */
export const sealContext = (tokenId: string, userId: number, provider: string) => `${tokenId}\n${userId}\n${provider}`;

/**
 * The sealing key of one configured method instance, when its definition has a direct card type: HKDF-SHA256 over its
 * required secrets (in their declared order), salted per instance. Undefined for any other method.
 */
export function cardSealKey(
  instanceId: string,
  def: Pick<AdapterDefinition, 'payTypes' | 'required'>,
  config: Record<string, string>,
): Buffer | undefined {
  if (!def.payTypes.some((t) => t.directCard)) return undefined;
  const secrets = def.required.map((k) => config[k] ?? '').join('\0');
  if (!secrets.replace(/\0/g, '')) return undefined;
  return Buffer.from(hkdfSync('sha256', secrets, `powerly/payer-card/${instanceId}`, 'payer token card v1', 32));
}

export function sealCard(key: Buffer, card: CardFields, context: string): SealedCard {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ct = Buffer.concat([cipher.update(JSON.stringify(card), 'utf8'), cipher.final()]);
  return { v: 1, iv: iv.toString('base64'), ct: ct.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

/** The card, or undefined when the sealed value does not open with this key and context (tampered, moved, other key). */
export function openCard(key: Buffer, sealed: SealedCard, context: string): CardFields | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]).toString('utf8');
    const c = JSON.parse(plain) as CardFields;
    return typeof c.number === 'string' && typeof c.cvv === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}
