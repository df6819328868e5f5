// Route '/MercadoPago': a live Mercado Pago payment's card step in MercadoPago.js v2. Reads the public
// key (the payment key of the agent), the SDK's URL, our reference and the amount (the action of mercadopago.ts
// start()); mounts MercadoPago.js's Secure Fields (card number, expiry, security code: Mercado Pago's frames) beside
// the e-mail, the cardholder, the document the account's country asks for, the issuer and the installments that
// MercadoPago.js reads for the card's BIN; on submit creates the card token (`mp.fields.createCardToken`) and posts
// The pagoPaymentRequest fields (token, paymentMethodId, issuerId, installments; the payer's e-mail and
// document) to /payments/return/<outTradeNo>. The resume of the screen that paid creates the payment with them.
// "Save this card" (the action names the method, `paymentId`): a first card token is saved (cdb/user/card/saveToken,
// card save) and a second one pays (a card token is single-use). A saved card being paid with (`cardId`):
// only the security code field, and the token is the saved card's (`createCardToken({cardId})`), as Mercado Pago
// requires.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import './pay.css';
import { useStore } from '@nanostores/react';
import { useT, $activeLang } from '../i18n/index.ts';
import { useLatest } from '../ui/hooks.ts';
import { $route } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { money } from '../ui/format.ts';
import { EMAIL } from '../core/email.ts';
import { loadSdk, mercadoPagoLocale, readMercadoPagoQuery, returnToApp, sdkErrorText, titleFrames } from './sdk.ts';
import { usePayStrings } from './strings.ts';
import { saveTokenCard } from '../api/payScreens.ts';
import { randomId } from '../stores/session.ts';
import { toast } from '../ui/feedback.tsx';
import { SdkInvalidLink } from './SdkInvalidLink.tsx';

type SecureField = 'cardNumber' | 'expirationDate' | 'securityCode';
interface MpField {
  mount(containerId: string): MpField;
  on(event: string, cb: (e: { bin?: string | null }) => void): MpField;
  unmount(): void;
}
interface IdType {
  id: string;
  name: string;
}
interface MpInstance {
  fields: {
    create(type: SecureField, options?: { placeholder?: string }): MpField;
    createCardToken(
      data: { cardholderName: string; identificationType?: string; identificationNumber?: string } | { cardId: string },
    ): Promise<{ id: string }>;
  };
  getIdentificationTypes(): Promise<IdType[]>;
  getPaymentMethods(o: { bin: string }): Promise<{ results: { id: string; payment_type_id: string }[] }>;
  getIssuers(o: { paymentMethodId: string; bin: string }): Promise<{ id: string | number; name: string }[]>;
  getInstallments(o: {
    amount: string;
    bin: string;
    paymentTypeId?: string;
    locale?: string;
  }): Promise<{ payer_costs: { installments: number; recommended_message: string }[] }[]>;
}
type MpConstructor = new (publicKey: string, options?: { locale?: string }) => MpInstance;

const FIELDS: SecureField[] = ['cardNumber', 'expirationDate', 'securityCode'];
const hostId = (f: SecureField) => `mp-${f}`;

interface CardInfo {
  paymentMethodId: string;
  issuers: { id: string; name: string }[];
  installments: { installments: number; recommended_message: string }[];
}

export default function MercadoPago() {
  const t = useT();
  usePayStrings();
  const id = useId();
  const lang = useStore($activeLang);
  const { query } = useStore($route);
  const q = readMercadoPagoQuery(query);
  const tNow = useLatest(t);
  const [mp, setMp] = useState<MpInstance | null | undefined>(undefined);
  const [idTypes, setIdTypes] = useState<IdType[]>([]);
  const [info, setInfo] = useState<CardInfo | null>(null);
  const [form, setForm] = useState({ email: '', holder: '', idType: '', idNumber: '', issuer: '', installments: '1' });
  const [saveCard, setSaveCard] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const hosts = useRef<HTMLDivElement>(null);

  const key = q?.publicKey;
  const sdkUrl = q?.sdkUrl;
  const amount = q?.amount;
  const locale = q ? mercadoPagoLocale(lang, q.currency) : 'en-US';
  const savedCard = q?.cardId;
  useEffect(() => {
    if (!key || !sdkUrl || !amount) return;
    let live = true;
    let mounted: MpField[] = [];
    void loadSdk(sdkUrl, () => (window as unknown as { MercadoPago?: MpConstructor }).MercadoPago, tNow.current).then(
      async (Ctor) => {
        if (!live) return;
        if (!Ctor) return setMp(null);
        const sdk = new Ctor(key, { locale });
        const t = tNow.current;
        const placeholder: Record<SecureField, string> = {
          cardNumber: '1234 1234 1234 1234',
          expirationDate: t('card.expiryPlaceholder'),
          securityCode: '123',
        };
        if (savedCard) {
          // A saved card: its security code only; the card, its method and issuer are Mercado Pago's already.
          mounted = [
            sdk.fields.create('securityCode', { placeholder: placeholder.securityCode }).mount(hostId('securityCode')),
          ];
          return setMp(sdk);
        }
        mounted = FIELDS.map((f) => sdk.fields.create(f, { placeholder: placeholder[f] }).mount(hostId(f)));
        // The card's BIN decides its payment method, issuers and installments (MercadoPago.js asks Mercado Pago).
        mounted[0]!.on('binChange', ({ bin }) => {
          if (!bin) return setInfo(null);
          void (async () => {
            try {
              const pm = (await sdk.getPaymentMethods({ bin })).results[0];
              if (!pm) return setError(t('card.errors.number.luhn'));
              const [issuers, plans] = await Promise.all([
                sdk.getIssuers({ paymentMethodId: pm.id, bin }),
                sdk.getInstallments({ amount, bin, paymentTypeId: pm.payment_type_id, locale }),
              ]);
              if (!live) return;
              const list = issuers.map((i) => ({ id: String(i.id), name: i.name }));
              setInfo({ paymentMethodId: pm.id, issuers: list, installments: plans[0]?.payer_costs ?? [] });
              setForm((f) => ({
                ...f,
                issuer: list[0]?.id ?? '',
                installments: String(plans[0]?.payer_costs[0]?.installments ?? 1),
              }));
              setError('');
            } catch (e) {
              if (live) setError(sdkErrorText(e, t('sdkPay.failed')));
            }
          })();
        });
        setMp(sdk);
        const types = await sdk.getIdentificationTypes().catch(() => []);
        if (!live) return;
        setIdTypes(types);
        setForm((f) => ({ ...f, idType: types[0]?.id ?? '' }));
      },
    );
    return () => {
      live = false;
      mounted.forEach((m) => m.unmount());
    };
  }, [key, sdkUrl, amount, locale, savedCard, tNow]);

  useEffect(
    () => (hosts.current ? titleFrames(hosts.current, tNow.current('stripe.cardLabel')) : undefined),
    [mp, tNow],
  );

  if (!q) return <SdkInvalidLink title={t('routes.mercadoPago')} />;

  const shown = money(q.currency, Number(q.amount));
  // The end of either form (a saved card's security code, or a new card): errors, the note, pay and cancel.
  const foot = (
    <>
      <p id="card-errors" className="field-error" role="alert">
        {error}
      </p>
      <p className="muted small">{t('sdkPay.secureNote', { provider: 'Mercado Pago' })}</p>
      <button type="submit" className="button primary block" aria-disabled={busy || !mp} aria-busy={busy}>
        {busy ? t('confirm.paying') : t('confirm.pay', { amount: shown })}
      </button>
      <button
        type="button"
        className="button block"
        disabled={busy}
        onClick={() => void returnToApp(q.outTradeNo, { cancel: '1' })}
      >
        {t('sdkPay.cancel')}
      </button>
    </>
  );
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));
  const fail = (text: string, focus?: string) => {
    setError(text);
    if (focus) document.getElementById(focus)?.focus();
  };

  const paySaved = async () => {
    if (!mp || busy || !q.cardId) return;
    setBusy(true);
    setError('');
    let token: string;
    try {
      token = (await mp.fields.createCardToken({ cardId: q.cardId })).id;
    } catch (e) {
      setBusy(false);
      return fail(sdkErrorText(e, t('stripe.cardIncomplete')));
    }
    void returnToApp(q.outTradeNo, { token, installments: '1' });
  };

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (q.cardId) return paySaved();
    if (!mp || busy) return;
    if (!EMAIL.test(form.email.trim())) return fail(t('external.emailRequired'), `${id}-email`);
    if (!form.holder.trim()) return fail(t('sdkPay.holderRequired'), `${id}-holder`);
    if (idTypes.length && !form.idNumber.trim()) return fail(t('sdkPay.docRequired'), `${id}-doc`);
    if (!info) return fail(t('stripe.cardIncomplete'));
    setBusy(true);
    setError('');
    let token: string;
    const doc = idTypes.length ? { identificationType: form.idType, identificationNumber: form.idNumber.trim() } : {};
    const tokenise = async () => (await mp.fields.createCardToken({ cardholderName: form.holder.trim(), ...doc })).id;
    try {
      token = await tokenise();
    } catch (e) {
      setBusy(false);
      return fail(sdkErrorText(e, t('stripe.cardIncomplete')));
    }
    if (saveCard && q.paymentId) {
      // This token saves the card; a second one pays. A card that could not be saved is still paid with.
      try {
        await saveTokenCard(
          {
            paymentId: q.paymentId,
            token,
            paymentMethodId: info.paymentMethodId,
            issuerId: form.issuer || undefined,
            email: form.email.trim(),
            currency: q.currency,
          },
          randomId(),
        );
        toast(t('sdkPay.cardSaved'));
      } catch {
        toast(t('sdkPay.saveFailed'));
      }
      try {
        token = await tokenise();
      } catch (e) {
        setBusy(false);
        return fail(sdkErrorText(e, t('stripe.cardIncomplete')));
      }
    }
    void returnToApp(q.outTradeNo, {
      token,
      paymentMethodId: info.paymentMethodId,
      issuerId: form.issuer,
      installments: form.installments,
      email: form.email.trim(),
      ...(idTypes.length ? { identificationType: form.idType, identificationNumber: form.idNumber.trim() } : {}),
    });
  };

  const secure = (f: SecureField, label: string) => (
    <div className="field">
      <span id={`${id}-${f}`} className="field-label">
        {label}
      </span>
      <div
        id={hostId(f)}
        className="sdk-field"
        role="group"
        aria-labelledby={`${id}-${f}`}
        aria-describedby="card-errors"
      />
    </div>
  );

  return (
    <>
      <PageHeader title={t('routes.mercadoPago')} />
      <main className="page confirm">
        <section className="amount-card" aria-labelledby={`${id}-amount`}>
          <p id={`${id}-amount`} className="muted">
            {t('confirm.amountLabel')}
          </p>
          <p className="amount">{shown}</p>
        </section>
        {q.cardId ? (
          <form className="card-form" noValidate onSubmit={(e) => void submit(e)} aria-busy={busy}>
            <p>{t('sdkPay.savedCardText')}</p>
            {mp === undefined ? <Loading label={t('stripe.loadingProvider')} /> : null}
            {mp === null ? <p role="alert">{t('stripe.unavailable')}</p> : null}
            <div ref={hosts} className="card-form">
              {secure('securityCode', t('card.cvc'))}
            </div>
            {foot}
          </form>
        ) : (
          <form className="card-form" noValidate onSubmit={(e) => void submit(e)} aria-busy={busy}>
            <div className="field">
              <label htmlFor={`${id}-email`}>{t('external.email')}</label>
              <input
                id={`${id}-email`}
                type="email"
                autoComplete="email"
                maxLength={254}
                value={form.email}
                onChange={set('email')}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-holder`}>{t('sdkPay.holder')}</label>
              <input
                id={`${id}-holder`}
                type="text"
                autoComplete="cc-name"
                maxLength={100}
                value={form.holder}
                onChange={set('holder')}
              />
            </div>
            {mp === undefined ? <Loading label={t('stripe.loadingProvider')} /> : null}
            {mp === null ? <p role="alert">{t('stripe.unavailable')}</p> : null}
            <div ref={hosts} className="card-form">
              {secure('cardNumber', t('card.number'))}
              <div className="field-row">
                {secure('expirationDate', t('card.expiry'))}
                {secure('securityCode', t('card.cvc'))}
              </div>
            </div>
            {idTypes.length ? (
              <div className="field-row">
                <div className="field">
                  <label htmlFor={`${id}-docType`}>{t('sdkPay.docType')}</label>
                  <select id={`${id}-docType`} value={form.idType} onChange={set('idType')}>
                    {idTypes.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.name}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="field">
                  <label htmlFor={`${id}-doc`}>{t('sdkPay.docNumber')}</label>
                  <input
                    id={`${id}-doc`}
                    type="text"
                    inputMode="numeric"
                    maxLength={30}
                    value={form.idNumber}
                    onChange={set('idNumber')}
                  />
                </div>
              </div>
            ) : null}
            {info && info.issuers.length > 1 ? (
              <div className="field">
                <label htmlFor={`${id}-issuer`}>{t('sdkPay.issuer')}</label>
                <select id={`${id}-issuer`} value={form.issuer} onChange={set('issuer')}>
                  {info.issuers.map((i) => (
                    <option key={i.id} value={i.id}>
                      {i.name}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
            {info?.installments.length ? (
              <div className="field">
                <label htmlFor={`${id}-installments`}>{t('sdkPay.installments')}</label>
                <select id={`${id}-installments`} value={form.installments} onChange={set('installments')}>
                  {info.installments.map((c) => (
                    <option key={c.installments} value={String(c.installments)}>
                      {c.recommended_message}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
            {q.paymentId ? (
              <label className="check-row">
                <input
                  type="checkbox"
                  checked={saveCard}
                  disabled={busy}
                  onChange={(e) => setSaveCard(e.target.checked)}
                />
                <span>{t('sdkPay.saveCard')}</span>
              </label>
            ) : null}
            {foot}
          </form>
        )}
      </main>
    </>
  );
}
