import { Type } from 'typebox';
import { toMajor } from '../../../../src/core/money.ts';
import { Envelope, ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import { currencySymbol } from '../venues/service.ts';
import type { WalletService } from './service.ts';

const Wallet = Type.Object({
  pBalance: Type.Number({ description: 'available balance, major units' }),
  pCurrencySymbol: Type.String(),
  pCurrencyType: Type.String(),
  pDepositAmount: Type.Number({ description: 'deposit currently held, major units' }),
  pDailiId: Type.String(),
});

export default async function walletRoutes(app: App, opts: { wallet: WalletService }) {
  app.get('/cdb/user/wallet/new', {
    schema: { tags: ['wallet'], summary: "The user's wallets, one per currency", response: { 200: Envelope(Type.Array(Wallet)) } },
    preHandler: app.requireUser,
  }, async (req) => {
    const u = currentUser(req);
    const wallets = await opts.wallet.wallets(u.id, u.currency);
    return ok(wallets.map((w) => ({
      pBalance: toMajor(w.balance, w.currency),
      pCurrencySymbol: currencySymbol(w.currency),
      pCurrencyType: w.currency,
      pDepositAmount: toMajor(w.held, w.currency),
      pDailiId: 'powerly',
    })));
  });
}
