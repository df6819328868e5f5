// The server's log options. Card fields never reach the log, wherever they sit in a logged object (a request body,
// an error's context, a job payload): the payer endpoint takes them for Flutterwave's direct card charge
// (docs/payments.md "Card data"), so every name they travel under is redacted by pino before a line is written.
const CARD_KEYS = [
  'cardNumber',
  'cvv',
  'cvc',
  'expiryMonth',
  'expiryYear',
  'card_number',
  'expiry_month',
  'expiry_year',
  'sealedCard',
];

/** pino redaction paths: each card key at the top level and up to three levels down, and a `card` object's fields. */
export const REDACT_PATHS = [
  ...CARD_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `*.*.*.${k}`]),
  ...['number', 'cvv', 'expMonth', 'expYear'].flatMap((k) => [`card.${k}`, `*.card.${k}`, `*.*.card.${k}`]),
];

export const REDACTED = '[redacted]';

/** Fastify's `logger` option of the production server. */
export function loggerOptions(level: string) {
  return { level, redact: { paths: REDACT_PATHS, censor: REDACTED } };
}
