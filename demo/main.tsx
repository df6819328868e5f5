// The demo page (/demo/): what a person at the seeded venues would see and do, on one screen.
import { createRoot } from 'react-dom/client';
import { startI18n, useT } from '../src/i18n/index.ts';
import { LangSelect } from '../src/ui/LangSelect.tsx';
import { CabinetPanel } from './CabinetPanel.tsx';
import { SmsPanel } from './SmsPanel.tsx';
import '../src/ui/app.css';
import './demo.css';

function DemoPage() {
  const t = useT();
  return (
    <main className="demo">
      <header className="demo-header">
        <h1 className="title">{t('demo.title')}</h1>
        <LangSelect />
      </header>
      <p className="lead">{t('demo.intro')}</p>
      <ol className="steps">
        <li>{t('demo.step1')}</li>
        <li>{t('demo.step2')}</li>
        <li>{t('demo.step3')}</li>
      </ol>
      <CabinetPanel />
      <SmsPanel />
    </main>
  );
}

startI18n();
createRoot(document.getElementById('root')!).render(<DemoPage />);
