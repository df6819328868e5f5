// Route '/shop': equipment for sale. No product is configured for any agent, so the page says that equipment is
// not sold in the app and where to ask instead; the "Buy equipment" entry of /mine is not shown (docs/architecture.md
// "Equipment sale"). A fixed product with one agent's price and contact would mislead every other agent's riders.
import { useT } from '../i18n/index.ts';
import { navigate } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import './info.css';

export default function Shop() {
  const t = useT();
  return (
    <>
      <PageHeader title={t('shop.title')} />
      <main className="page">
        <section className="info-card">
          <p>{t('shop.none')}</p>
          <button type="button" className="button block" onClick={() => navigate('/contactUs')}>
            {t('menu.contactUs')}
          </button>
        </section>
      </main>
    </>
  );
}
