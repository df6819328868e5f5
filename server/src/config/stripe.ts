// Stripe configuration from the environment (README "Configuration"; docs/payments.md "Per-agent accounts").
//   STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET  the platform's account (all three or none)
//   STRIPE_AGENT_ACCOUNTS  JSON: {"<agentId>": {"secretKey","publishableKey","webhookSecret"}}  an agent's own account,
//                          or {"<agentId>": {"connectedAccount": "acct_…"}}  an agent's connected account (Connect)
//   STRIPE_API_HOST / STRIPE_API_PORT / STRIPE_API_PROTOCOL  another API endpoint (a Stripe-compatible test server)
import type { StripeAccount, StripeTransport } from '../modules/payments/stripe.ts';

export const STRIPE_VARIABLES = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'STRIPE_WEBHOOK_SECRET'] as const;

export interface StripeSettings {
  account: StripeAccount;
  /** Agents with their own keys or a connected account; other agents use the platform's account. */
  agents: Record<string, Partial<StripeAccount>>;
  transport?: StripeTransport;
}

/** The Stripe settings, or which of the three variables are missing (none set: all three). */
export function stripeSettingsFromEnv(env: NodeJS.ProcessEnv): { settings?: StripeSettings; missing: string[] } {
  const missing = STRIPE_VARIABLES.filter((v) => !env[v]);
  if (missing.length) return { missing };
  let agents: Record<string, Partial<StripeAccount>> = {};
  if (env.STRIPE_AGENT_ACCOUNTS) {
    try {
      agents = JSON.parse(env.STRIPE_AGENT_ACCOUNTS) as Record<string, Partial<StripeAccount>>;
    } catch {
      throw new Error('STRIPE_AGENT_ACCOUNTS is not valid JSON');
    }
    for (const [id, a] of Object.entries(agents)) {
      const own = a.secretKey || a.publishableKey || a.webhookSecret;
      if (own && !(a.secretKey && a.publishableKey && a.webhookSecret)) {
        throw new Error(
          `STRIPE_AGENT_ACCOUNTS.${id}: an agent's own account needs secretKey, publishableKey and webhookSecret`,
        );
      }
      if (!own && !a.connectedAccount?.startsWith('acct_'))
        throw new Error(`STRIPE_AGENT_ACCOUNTS.${id}: give its own keys or a connectedAccount (acct_…)`);
    }
  }
  const port = env.STRIPE_API_PORT ? Number(env.STRIPE_API_PORT) : undefined;
  const protocol = env.STRIPE_API_PROTOCOL === 'http' ? 'http' : env.STRIPE_API_PROTOCOL ? 'https' : undefined;
  return {
    missing: [],
    settings: {
      account: {
        secretKey: env.STRIPE_SECRET_KEY!,
        publishableKey: env.STRIPE_PUBLISHABLE_KEY!,
        webhookSecret: env.STRIPE_WEBHOOK_SECRET!,
      },
      agents,
      transport: env.STRIPE_API_HOST ? { host: env.STRIPE_API_HOST, port, protocol } : undefined,
    },
  };
}
