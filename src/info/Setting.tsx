// Route '/setting': the language row and the language picker. Choosing a language switches every text and the
// currency formatting at once (the locale table is loaded first, then the language flips in one render).
import { useId, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useT, $activeLang } from '../i18n/index.ts';
import { $lang } from '../stores/locale.ts';
import { LOCALES, LOCALE_NAMES, currencyOf, isLocale, type Locale } from '../core/lang.ts';
import { formatMoney } from '../core/money.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import './info.css';

export default function Setting() {
  const t = useT();
  const lang = useStore($activeLang);
  const [picking, setPicking] = useState(false);
  const [choice, setChoice] = useState<Locale>(lang);
  const id = useId();
  const currency = currencyOf(lang);

  return (
    <>
      <PageHeader title={t('setting.title')} />
      <main className="page">
        <button
          type="button"
          className="setting-row"
          aria-haspopup="dialog"
          onClick={() => {
            setChoice(lang);
            setPicking(true);
          }}
        >
          <span>{t('setting.language')}</span>
          <span className="value" lang={lang}>
            {LOCALE_NAMES[lang]} ›
          </span>
        </button>
        <div className="setting-row" role="group" aria-label={t('setting.currency')}>
          <span>{t('setting.currency')}</span>
          <span className="value" data-testid="currency-sample">
            {t(`setting.currencyName.${currency}`)} · {formatMoney(123456, currency, lang)}
          </span>
        </div>
      </main>
      <Dialog
        open={picking}
        title={t('setting.pickLanguage')}
        onClose={() => setPicking(false)}
        actions={
          <>
            <button type="button" className="button" onClick={() => setPicking(false)}>
              {t('common.cancel')}
            </button>
            <button
              type="button"
              className="button primary"
              onClick={() => {
                setPicking(false);
                $lang.set(choice);
              }}
            >
              {t('common.ok')}
            </button>
          </>
        }
      >
        <fieldset style={{ border: 0, margin: 0, padding: 0 }}>
          <legend className="visually-hidden">{t('setting.language')}</legend>
          <ul className="lang-options">
            {LOCALES.map((l) => (
              <li key={l}>
                <label htmlFor={`${id}-${l}`} lang={l}>
                  <input
                    id={`${id}-${l}`}
                    type="radio"
                    name={`${id}-lang`}
                    value={l}
                    checked={choice === l}
                    onChange={(e) => isLocale(e.target.value) && setChoice(e.target.value)}
                  />
                  {LOCALE_NAMES[l]}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      </Dialog>
    </>
  );
}
