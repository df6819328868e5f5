// The embed's calls: web-vitals reports (public, sendBeacon text/plain JSON), the performance summary, and the
// one-time codes that hand a native host's session to its web-view page.
import { Type, type Static } from 'typebox';

export const Vital = Type.Object(
  {
    shape: Type.Union([Type.Literal('app'), Type.Literal('iframe'), Type.Literal('element'), Type.Literal('webview')]),
    name: Type.Union([
      Type.Literal('CLS'),
      Type.Literal('FCP'),
      Type.Literal('INP'),
      Type.Literal('LCP'),
      Type.Literal('TTFB'),
    ]),
    value: Type.Number({ minimum: 0, maximum: 600_000 }),
    rating: Type.Union([Type.Literal('good'), Type.Literal('needs-improvement'), Type.Literal('poor')]),
    // A route path only: no query string, so no token, order id or code can ride along.
    route: Type.String({ maxLength: 60, pattern: '^(/[A-Za-z0-9_/-]*)?$' }),
  },
  { additionalProperties: false },
);
export type Vital = Static<typeof Vital>;

export const VitalsSummaryQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 7 })),
});
export const VitalsSummary = Type.Object({
  shape: Type.String(),
  name: Type.String(),
  count: Type.Integer(),
  p75: Type.Number(),
  good: Type.Integer(),
  needsImprovement: Type.Integer(),
  poor: Type.Integer(),
});
export type VitalsSummary = Static<typeof VitalsSummary>;

const Agent = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });
export const EmbedCodeBody = Type.Object({ agent: Agent });
export type EmbedCodeBody = Static<typeof EmbedCodeBody>;
export const EmbedCode = Type.Object({ code: Type.String(), expiresAt: Type.Integer() });
export type EmbedCode = Static<typeof EmbedCode>;
export const RedeemCodeBody = Type.Object({ code: Type.String({ maxLength: 600 }), agent: Agent });
export type RedeemCodeBody = Static<typeof RedeemCodeBody>;
export const RedeemedSession = Type.Object({ token: Type.String() });
export type RedeemedSession = Static<typeof RedeemedSession>;
