// Route '/payMethod': choose how to pay, among the methods of the venue's currency and agent (the server scopes
// them by the agentOpenId header) that this platform can use; then back to /confirm with the chosen paymentId.
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useT, errorText } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { $qrcode } from '../stores/scan.ts';
import { listPaymentMethods, type PaymentMethod } from '../api/payment.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { confirmDialog } from '../ui/feedback.tsx';
import { currentSystem } from '../platform/device.ts';
import { stripeKind } from './stripe.ts';
import { usePayStrings } from './strings.ts';
import './pay.css';

/**
 * Apple Pay is not offered on Android, Google Pay not on iOS; the Express Checkout Element still checks the device.
 * A wallet in test mode (paid on the sandbox's test page, `kind` set) has no such element: it is offered only where
 * the browser can pay at all with a wallet (the Payment Request API), as Stripe offers its wallets.
 */
export function usableOn(
  system: string,
  m: Pick<PaymentMethod, 'pPaymentType' | 'kind'>,
  paymentRequest = hasPaymentRequest(),
): boolean {
  const wallet = stripeKind(m.pPaymentType) === 'wallet';
  if (wallet && m.kind && !paymentRequest) return false;
  if (m.pPaymentType === 'STRIPE_APPLE' || m.pPaymentType === 'APPLE_PAY') return system !== 'android';
  if (m.pPaymentType === 'STRIPE_GOOGLE' || m.pPaymentType === 'GOOGLE_PAY') return system !== 'ios';
  return stripeKind(m.pPaymentType) != null || m.kind != null;
}

const hasPaymentRequest = () => typeof window !== 'undefined' && 'PaymentRequest' in window;

/**
 * Two methods of one name (a card of two providers) are told apart by their provider: the method id's provider
 * without an agent or a part (`stripe.go9`, `stripe-redirects` → Stripe).
 */
export function distinctLabels<M extends Pick<PaymentMethod, 'pId' | 'label'>>(methods: M[]): M[] {
  const twice = (label: string) => methods.filter((m) => m.label === label).length > 1;
  return methods.map((m) => {
    const by = m.pId.includes(':') ? m.pId.split(':')[0]!.split(/[.-]/)[0]! : '';
    return twice(m.label) && by ? { ...m, label: `${m.label} · ${by.charAt(0).toUpperCase()}${by.slice(1)}` } : m;
  });
}

export default function PayMethod() {
  const t = useT();
  usePayStrings();
  const { query } = useStore($route);
  const storedQr = useStore($qrcode);
  const qrcode = query.get('qrcode') || storedQr;
  const currency = query.get('currency') ?? '';
  const [methods, setMethods] = useState<PaymentMethod[] | null>(null);
  /** Methods exist for this payment, but none works on this device's system: "System not supported". */
  const [unsupported, setUnsupported] = useState(false);
  const [chosen, setChosen] = useState(query.get('paymentId') ?? '');

  const load = useCallback(async () => {
    try {
      const system = currentSystem();
      // As /confirm lists them: a cabinet deposit (YJ) by the cabinet, any other payment (a top-up, a Wi-Fi package) by its currency.
      const byCabinet = (query.get('payType') ?? 'YJ') === 'YJ' && qrcode;
      const all = await listPaymentMethods(byCabinet ? qrcode : '', currency);
      const list = all.filter((m) => usableOn(system, m));
      setUnsupported(all.length > 0 && list.length === 0);
      setMethods(list);
      setChosen((c) => c || list[0]?.pId || '');
    } catch (e) {
      if (await confirmDialog({ title: t('confirm.methodsFailed'), text: errorText(e, t), okLabel: t('common.retry') }))
        void load();
    }
  }, [qrcode, currency, query, t]);
  useEffect(() => {
    void load();
  }, [load]);

  const go = () => {
    const next = Object.fromEntries(query);
    navigate(href('/confirm', { ...next, paymentId: chosen }), { replace: true });
  };

  return (
    <>
      <PageHeader title={t('routes.payMethod')} />
      <main className="page pay-method">
        {!methods ? (
          <Loading label={t('confirm.loadingMethods')} />
        ) : methods.length === 0 ? (
          <p role="alert">{t(unsupported ? 'payMethod.systemUnsupported' : 'confirm.noMethod')}</p>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              go();
            }}
          >
            <fieldset>
              <legend>{t('payMethod.intro')}</legend>
              {distinctLabels(methods).map((m) => (
                <label key={m.pId} className="radio-row">
                  <input
                    type="radio"
                    name="method"
                    value={m.pId}
                    checked={chosen === m.pId}
                    onChange={() => setChosen(m.pId)}
                  />
                  <span>{m.label}</span>
                </label>
              ))}
            </fieldset>
            <button type="submit" className="button primary block" disabled={!chosen}>
              {t('payMethod.continue')}
            </button>
          </form>
        )}
      </main>
    </>
  );
}
