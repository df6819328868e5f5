// About-us content (spec §2: company description, contact items). Rendered by #/aboutUs and, without app
// chrome, by the web-view page #/aboutUsApp/{lang}. (Issue 8 completes this screen: images, contact form.)
import { useT } from '../i18n/index.ts';
import { ContactItems } from './ContactUs.tsx';

export function AboutUsContent() {
  const t = useT();
  return (
    <article className="info-content" aria-labelledby="about-title">
      <h1 id="about-title">{t('infoPages.aboutTitle')}</h1>
      <p>{t('infoPages.aboutIntro')}</p>
      <p>{t('infoPages.aboutPartner')}</p>
      <ContactItems />
    </article>
  );
}

export default AboutUsContent;
