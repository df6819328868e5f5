// The payment methods '/confirm' offers, loaded per cabinet (a rental's), currency and language; a failed load asks
// to retry, and Cancel (or Escape) goes back where the user came from.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { errorText, $activeLang, type T } from '../i18n/index.ts';
import { useLatest } from '../ui/hooks.ts';
import { back } from '../stores/router.ts';
import { listPaymentMethods, type PaymentMethod } from '../api/payment.ts';
import type { PayType } from '../core/payTypes.ts';
import { confirmDialog } from '../ui/feedback.tsx';

/** The methods (null while loading) and the text of a failed load. */
export function useConfirmMethods(payType: PayType, qrcode: string, currency: string, t: T) {
  const [methods, setMethods] = useState<PaymentMethod[] | null>(null);
  const [loadError, setLoadError] = useState('');

  // Keyed on the language, not on `t`: `t` also changes when a string table arrives (this screen's own payment
  // strings load beside it), and reloading the methods then would replace the card form and wipe what the
  // person has already typed.
  const lang = useStore($activeLang);
  const tNow = useLatest(t);
  const load = useCallback(async () => {
    setLoadError('');
    setMethods(null);
    try {
      setMethods(await listPaymentMethods(payType === 'YJ' ? qrcode : '', currency));
    } catch (e) {
      const t = tNow.current;
      const text = errorText(e, t);
      setLoadError(text);
      // Retry loads again; Cancel (or Escape) goes back where the user came from.
      const retry = await confirmDialog({ title: t('confirm.methodsFailed'), text, okLabel: t('common.retry') });
      if (retry) void loadRef.current();
      else back({ from: '/confirm' });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- lang: the method labels come localised
  }, [qrcode, lang, payType, currency, tNow]);
  const loadRef = useRef(load);
  loadRef.current = load;

  // Loads per qrcode and language (method labels come localised).
  useEffect(() => {
    void load();
  }, [load]);
  return { methods, loadError };
}
