// The web-view pages native apps load: #/aboutUsApp/{lang} and #/contactUsApp/{lang} (also without {lang}).
// A bare layout — no header, back button or menu: the native app has its own chrome. The language comes from
// the path through the route-language mapping (mapRouteLang); an unknown value keeps the stored language.
import { useEffect, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { $route } from '../stores/router.ts';
import { $lang } from '../stores/locale.ts';
import { mapRouteLang } from '../core/lang.ts';
import { pathLang } from '../core/firstScreen.ts';
import { loadLocale, useT } from '../i18n/index.ts';
import AboutUs from './AboutUs.tsx';
import ContactUs from './ContactUs.tsx';
import './webview.css';

function WebViewLayout({ titleKey, children }: { titleKey: string; children: ReactNode }) {
  const t = useT();
  const { path } = useStore($route);
  const lang = mapRouteLang(pathLang(path));
  useEffect(() => {
    if (!lang) return;
    $lang.set(lang);
    void loadLocale(lang);
  }, [lang]);
  return (
    <div className="webview-page">
      <h1 className="webview-title">{t(titleKey)}</h1>
      {children}
    </div>
  );
}

export function AboutUsApp() {
  return (
    <WebViewLayout titleKey="about.title">
      <AboutUs header={false} />
    </WebViewLayout>
  );
}

export function ContactUsApp() {
  return (
    <WebViewLayout titleKey="contact.title">
      <ContactUs header={false} />
    </WebViewLayout>
  );
}
