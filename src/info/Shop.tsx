// Route '/shop': the static equipment page the spec describes — a blue power bank for 99 yuan, quantity,
// contact, phone, address and a buy button. Not wired to any order call: buying says the service is not open.
import { useState } from 'react';
import { useT } from '../i18n/index.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { toast } from '../ui/feedback.tsx';
import './info.css';

export default function Shop() {
  const t = useT();
  const [qty, setQty] = useState(1);
  return (
    <>
      <PageHeader title={t('shop.title')} />
      <main className="page">
        <section className="info-card shop-product" aria-labelledby="shop-name">
          <svg viewBox="0 0 96 96" width="96" height="96" aria-hidden="true">
            <rect x="26" y="8" width="44" height="80" rx="10" fill="#1a56db" />
            <path d="M52 26l-12 22h9l-4 20 14-26h-9z" fill="#fff" />
          </svg>
          <div>
            <h2 id="shop-name">{t('shop.product')}</h2>
            <p className="price">{t('shop.price')}</p>
          </div>
        </section>
        <section className="info-card">
          <div className="setting-row" style={{ padding: 0 }}>
            <span id="shop-qty">{t('shop.quantity')}</span>
            <span className="stepper" role="group" aria-labelledby="shop-qty">
              <button type="button" className="icon-button" aria-label={t('shop.less')} disabled={qty <= 1} onClick={() => setQty(qty - 1)}>
                −
              </button>
              <output aria-live="polite">{qty}</output>
              <button type="button" className="icon-button" aria-label={t('shop.more')} onClick={() => setQty(qty + 1)}>
                +
              </button>
            </span>
          </div>
          <div className="receipt">
            <dl>
              <dt>{t('shop.contact')}</dt>
              <dd>{t('shop.contactValue')}</dd>
              <dt>{t('shop.phone')}</dt>
              <dd>{t('shop.phoneValue')}</dd>
              <dt>{t('shop.address')}</dt>
              <dd>{t('shop.addressValue')}</dd>
            </dl>
          </div>
        </section>
        <button type="button" className="button primary block" onClick={() => toast(t('shop.notOpen'))}>
          {t('shop.buy')}
        </button>
      </main>
    </>
  );
}
