// Partners' test fixtures: an agent running the Vilnius and Lisbon venues in Lithuania, share rules for venues and
// the agent, a tax rate and the sandbox provider's fee (what an operator sets through the ops API).
import type { Membership } from '#core/opsAccess.ts';
import { sha256 } from '../../src/lib/ids.ts';
import { csrfOfSession } from '../../src/plugins/ops-api.ts';
import type { Built } from '../helper.ts';
import { person } from '../ops/callers.ts';
import { OpsConsole } from '../ops/console.ts';

export const EFFECTIVE = new Date('2026-01-01T00:00:00Z');
export const RATES = {
  ltTaxBps: 2100,
  usTaxBps: 0,
  sandboxFeeBps: 290,
  vnoBps: 1500,
  lisBps: 500,
  nycBps: 2000,
  agentBps: 1000,
};

export async function partnersFixture(b: Built) {
  const repo = b.app.powerly.partners.d.repo;
  const at = b.clock.now();
  await b.app.powerly.fleet.agents.create({
    id: 'agt-baltic',
    name: 'Baltic Power',
    country: 'LT',
    currencies: ['EUR'],
    origins: [],
  });
  await b.db.query(`update venues set agent_id = 'agt-baltic' where id in ('v-vno-gedimino', 'v-lis-timeout')`);
  await repo.setTaxRate('LT', RATES.ltTaxBps, at);
  await repo.setProviderFee('sandbox', RATES.sandboxFeeBps, at);
  const rule = (
    partner_type: 'venue' | 'agent',
    partner_id: string,
    currency: string,
    percent_bps: number,
    monthly_fee = 0,
  ) =>
    repo.insertRule({
      partner_type,
      partner_id,
      currency,
      percent_bps,
      monthly_fee,
      effective_from: EFFECTIVE,
      created_at: at,
    });
  await rule('venue', 'v-vno-gedimino', 'EUR', RATES.vnoBps, 5000);
  await rule('venue', 'v-lis-timeout', 'EUR', RATES.lisBps);
  await rule('venue', 'v-nyc-gct', 'USD', RATES.nycBps);
  await rule('agent', 'agt-baltic', 'EUR', RATES.agentBps, 10000);
}

/** A console signed in as a new staff member with one membership, its session valid for a year of test time. */
export async function signedIn(b: Built, email: string, m: Membership): Promise<OpsConsole> {
  const c = new OpsConsole(b.app);
  const id = await person(b, email, m);
  const token = `session-of-${email}-0123456789abcdef`;
  await b.app.powerly.staff.repo.insertSession({
    tokenHash: sha256(token),
    staffId: id,
    method: 'passkey',
    ip: '127.0.0.1',
    userAgent: 't',
    at: b.clock.now(),
    expiresAt: new Date(b.clock.now().getTime() + 365 * 86_400_000),
  });
  c.jar.set('ops_session', token);
  c.csrf = csrfOfSession(token);
  return c;
}
