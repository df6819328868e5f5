// Contact-us content (spec §2: two description paragraphs and contact entries). Rendered by #/contactUs and,
// without app chrome, by the web-view page #/contactUsApp/{lang}. (Issue 8 completes this screen.)
import { useT } from '../i18n/index.ts';

export const CONTACT = { website: 'https://powerly.example', phone: '+351 210 000 000', email: 'support@powerly.example' };

export function ContactItems() {
  const t = useT();
  return (
    <dl className="info-contacts">
      <dt>{t('infoPages.website')}</dt>
      <dd><a href={CONTACT.website} target="_blank" rel="noopener noreferrer">{CONTACT.website.replace(/^https:\/\//, '')}</a></dd>
      <dt>{t('infoPages.phone')}</dt>
      <dd><a href={`tel:${CONTACT.phone.replace(/\s/g, '')}`}>{CONTACT.phone}</a></dd>
      <dt>{t('infoPages.email')}</dt>
      <dd><a href={`mailto:${CONTACT.email}`}>{CONTACT.email}</a></dd>
    </dl>
  );
}

export function ContactUsContent() {
  const t = useT();
  return (
    <article className="info-content" aria-labelledby="contact-title">
      <h1 id="contact-title">{t('infoPages.contactTitle')}</h1>
      <p>{t('infoPages.contactIntro')}</p>
      <p>{t('infoPages.contactIntro2')}</p>
      <ContactItems />
    </article>
  );
}

export default ContactUsContent;
