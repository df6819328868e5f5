// Security headers on every response (helmet): X-Content-Type-Options: nosniff, a Content-Security-Policy
// that lets the app, the embed and the demo pages load only their own scripts plus the providers' SDKs they use
// (the card SDKs of payment methods only where a method is configured live: `extra`),
// Referrer-Policy, HSTS (over HTTPS), Cross-Origin-Opener-Policy, and no X-Powered-By style leaks.
//   - frame-ancestors: 'none' everywhere except /embed/frame.html, whose route (static.ts) sends the agent's own
//     origins (pageCsp(frameAncestors(agent))); X-Frame-Options is off because frame-ancestors supersedes it and
//     would otherwise forbid the per-agent framing.
//   - Cross-Origin-Resource-Policy is left to static.ts (the embed's scripts are loaded cross-origin).
import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { FastifyInstance } from 'fastify';

/** Third-party scripts the flows load at run time (sign-in SDKs, reCAPTCHA, WeChat JS-SDK, Stripe.js). */
const SCRIPT_HOSTS = [
  'https://accounts.google.com',
  'https://appleid.cdn-apple.com',
  'https://connect.facebook.net',
  'https://www.google.com',
  'https://www.gstatic.com',
  'https://res.wx.qq.com',
  'https://js.stripe.com',
];
/** Frames those SDKs open (Google/Apple/Facebook sign-in, reCAPTCHA, Stripe 3-D Secure). */
const FRAME_HOSTS = [
  'https://accounts.google.com',
  'https://www.google.com',
  'https://appleid.apple.com',
  'https://www.facebook.com',
  'https://js.stripe.com',
  'https://hooks.stripe.com',
];

/**
 * Origins added for the client SDKs of the payment methods configured live (methods/registry.ts `methodsCsp`:
 * Monri Components, MercadoPago.js); none in test mode.
 */
export interface CspExtra {
  script: string[];
  frame: string[];
  connect: string[];
}
const NO_EXTRA: CspExtra = { script: [], frame: [], connect: [] };

/**
 * The page policy's directives (helmet's format); `frameAncestors` is the one directive that varies per page,
 * `extra` the one that varies per installation.
 */
export function cspDirectives(
  frameAncestors: string[] = ["'none'"],
  extra: CspExtra = NO_EXTRA,
  scriptHashes: string[] = [],
): Record<string, string[]> {
  return {
    'default-src': ["'self'"],
    // scriptHashes: a page's own inline scripts ('sha256-…'), e.g. the app pages' first-screen scripts (static.ts).
    'script-src': ["'self'", ...scriptHashes, ...SCRIPT_HOSTS, ...extra.script],
    // React style attributes, MapLibre and the sign-in SDKs set inline styles.
    'style-src': ["'self'", "'unsafe-inline'"],
    // Map tiles and glyphs come from the configured map style (any HTTPS host); QR images, avatars as data:/blob:.
    'img-src': ["'self'", 'data:', 'blob:', 'https:'],
    'font-src': ["'self'", 'data:', 'https:'],
    'connect-src': ["'self'", 'https:', ...extra.connect],
    // MapLibre and qr-scanner run their workers from blob: URLs.
    'worker-src': ["'self'", 'blob:'],
    'child-src': ["'self'", 'blob:'],
    'frame-src': ["'self'", ...FRAME_HOSTS, ...extra.frame],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': frameAncestors,
  };
}

/** The serialised policy (for routes that set it themselves, e.g. the embed frame with its agent's origins). */
export function pageCsp(frameAncestors: string, extra: CspExtra = NO_EXTRA, scriptHashes: string[] = []): string {
  return Object.entries(cspDirectives([frameAncestors], extra, scriptHashes))
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');
}

/**
 * `extra`: the SDK origins of the methods offered now. It may change while the server runs (a method switched on in
 * the console): the getter answers the same object until then, and the headers follow it from the next request.
 */
export default fp(
  async function security(app: FastifyInstance, opts: { extra?: () => CspExtra }) {
    const extraOf = opts.extra ?? (() => NO_EXTRA);
    // Pages that set their own policy (static.ts: the app, the embed frame) build it with the installation's extra.
    app.decorate('pageCsp', (frameAncestors: string, scriptHashes: string[] = []) =>
      pageCsp(frameAncestors, extraOf(), scriptHashes),
    );
    // One helmet middleware per policy, built when the extra changes and applied to every request. (@fastify/helmet
    // built a new one, parsing every option and CSP directive again, on each request: a measurable share of a fast
    // route's time.)
    let built: { extra: CspExtra; headers: ReturnType<typeof helmet> } | undefined;
    const headersFor = (extra: CspExtra) => {
      if (built?.extra !== extra) {
        built = {
          extra,
          headers: helmet({
            contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(["'none'"], extra) },
            xFrameOptions: false,
            crossOriginResourcePolicy: false,
            // Pages we open (sign-in popups) keep their opener; the embed frame sets `same-origin` itself (static.ts).
            crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
            crossOriginEmbedderPolicy: false,
          }),
        };
      }
      return built.headers;
    };
    app.addHook('onRequest', (req, reply, done) => {
      headersFor(extraOf())(req.raw, reply.raw, (err) => done(err as Error | undefined));
    });
  },
  { name: 'security-headers' },
);

declare module 'fastify' {
  interface FastifyInstance {
    /** This installation's page policy with the given frame-ancestors (plugins/security.ts). */
    pageCsp(frameAncestors: string, scriptHashes?: string[]): string;
  }
}
