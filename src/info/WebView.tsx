// The web-view pages native apps load: #/aboutUsApp/{lang} and #/contactUsApp/{lang} (also without {lang}).
// A bare layout — no header, back button or menu: the native app has its own chrome. The language comes from
// the path through spec §1's mapping (mapRouteLang); an unknown value keeps the stored language.
import { useEffect, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { $route } from '../stores/router.ts';
import { $lang } from '../stores/locale.ts';
import { mapRouteLang } from '../core/lang.ts';
import { loadLocale } from '../i18n/index.ts';
import { AboutUsContent } from './AboutUs.tsx';
import { ContactUsContent } from './ContactUs.tsx';
import './webview.css';

/** "/aboutUsApp/pt-BR" → "pt-BR"; no segment → null. */
export function pathLang(path: string): string | null {
  const m = path.match(/^\/(?:aboutUsApp|contactUsApp)\/([^/]+)$/);
  return m ? decodeURIComponent(m[1]!) : null;
}

function WebViewLayout({ children }: { children: ReactNode }) {
  const { path } = useStore($route);
  const lang = mapRouteLang(pathLang(path));
  useEffect(() => {
    if (!lang) return;
    $lang.set(lang);
    void loadLocale(lang);
  }, [lang]);
  return <main className="webview-page">{children}</main>;
}

export function AboutUsApp() {
  return (
    <WebViewLayout>
      <AboutUsContent />
    </WebViewLayout>
  );
}

export function ContactUsApp() {
  return (
    <WebViewLayout>
      <ContactUsContent />
    </WebViewLayout>
  );
}
