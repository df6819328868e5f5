// About-us content (spec §2: company description, contact items). Rendered by #/aboutUs and, without app
// chrome, by the web-view page #/aboutUsApp/{lang}. (Issue 8 completes this screen: images, contact form.)
import { useT } from '../i18n/index.ts';
import { ContactItems } from './ContactUs.tsx';

export function AboutUsContent() {
  const t = useT();
  return (
    <article className="info-content" aria-labelledby="about-title">
      <h1 id="about-title">{t('info.aboutTitle')}</h1>
      <p>{t('info.aboutIntro')}</p>
      <p>{t('info.aboutPartner')}</p>
      <ContactItems />
    </article>
  );
}

export default AboutUsContent;
