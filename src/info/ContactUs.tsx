// Route '/contactUs': two description paragraphs and the contact entries.
// Default export takes no required props (the web-view variants #/contactUsApp/{lang} reuse it).
import { useT } from '../i18n/index.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { ContactItems } from './contactInfo.tsx';
import './info.css';

export default function ContactUs({ header = true }: { header?: boolean } = {}) {
  const t = useT();
  return (
    <>
      {header ? <PageHeader title={t('contact.title')} /> : null}
      <main className="page">
        <section className="info-card">
          <p>{t('contact.text1')}</p>
          <p>{t('contact.text2')}</p>
        </section>
        <section className="info-card" aria-labelledby="contact-entries">
          <h2 id="contact-entries">{t('contact.entries')}</h2>
          <ContactItems t={t} />
        </section>
      </main>
    </>
  );
}
