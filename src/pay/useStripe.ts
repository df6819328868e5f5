// Stripe.js for one publishable key, loaded once per key (with a retry and toast): undefined while
// loading, null when it could not be loaded. The language only matters for the first load's toast.
import { useEffect, useState } from 'react';
import type { Stripe } from '@stripe/stripe-js';
import type { T } from '../i18n/index.ts';
import { useLatest } from '../ui/hooks.ts';
import { loadStripeWithRetry } from './stripe.ts';

export function useStripe(key: string, t: T, lang: string): Stripe | null | undefined {
  const [stripe, setStripe] = useState<Stripe | null | undefined>(undefined);
  const latest = useLatest({ t, lang });
  useEffect(() => {
    let live = true;
    void loadStripeWithRetry(key, latest.current.t, latest.current.lang).then((s) => live && setStripe(s));
    return () => {
      live = false;
    };
  }, [key, latest]);
  return stripe;
}
