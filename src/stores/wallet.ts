// The selected wallet (client state `wallet`): persisted so wallet_in / wallet_out know which one.
import { persistentJSON } from '@nanostores/persistent';
import type { Wallet } from '../api/wallet.ts';

export const $wallet = persistentJSON<Wallet | null>('wallet', null);
