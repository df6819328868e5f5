// Route '/aboutUs': company description, images, the contact and franchise form, contact items.
// Default export takes no required props (the web-view variants #/aboutUsApp/{lang} reuse it).
import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { ContactForm } from './ContactForm.tsx';
import { ContactItems } from './contactInfo.tsx';
import './info.css';

function CabinetPicture() {
  return (
    <svg viewBox="0 0 160 120" role="presentation" aria-hidden="true">
      <rect x="50" y="10" width="60" height="100" rx="8" fill="#0b6e4f" />
      {[0, 1, 2, 3].map((i) => (
        <rect key={i} x="60" y={22 + i * 21} width="40" height="14" rx="3" fill="#bfe3d5" />
      ))}
    </svg>
  );
}

function PowerBankPicture() {
  return (
    <svg viewBox="0 0 160 120" role="presentation" aria-hidden="true">
      <rect x="55" y="20" width="50" height="84" rx="10" fill="#1a56db" />
      <path d="M84 38l-14 26h10l-4 22 16-30H82z" fill="#fff" />
    </svg>
  );
}

export default function AboutUs({ header = true }: { header?: boolean } = {}) {
  const t = useT();
  const { query } = useStore($route);
  const join = query.get('join') === '1';
  useEffect(() => {
    if (join) document.getElementById('join')?.scrollIntoView({ block: 'start' });
  }, [join]);
  return (
    <>
      {header ? <PageHeader title={t('about.title')} /> : null}
      <main className="page">
        <section className="info-card" aria-labelledby="about-company">
          <h2 id="about-company">{t('about.company')}</h2>
          <p>{t('about.text1')}</p>
          <p>{t('about.text2')}</p>
          <div className="info-images">
            <figure>
              <CabinetPicture />
              <figcaption>{t('about.imageCabinet')}</figcaption>
            </figure>
            <figure>
              <PowerBankPicture />
              <figcaption>{t('about.imagePowerBank')}</figcaption>
            </figure>
          </div>
        </section>
        <ContactForm />
        <section className="info-card" aria-labelledby="about-contact">
          <h2 id="about-contact">{t('about.contactTitle')}</h2>
          <ContactItems t={t} />
        </section>
      </main>
    </>
  );
}
