// The back-office console's entry (/ops/): the operator's language, then the app.
import { createRoot } from 'react-dom/client';
import { startI18n } from '../i18n/index.ts';
import { App } from './App.tsx';
import './ops.css';

/** Marks the console's bundle: tests/unit/opsIsolation.test.ts checks that no rider or embed chunk contains it. */
export const OPS_CONSOLE_MARK = 'powerly-ops-console';
document.documentElement.dataset.app = OPS_CONSOLE_MARK;
startI18n();
createRoot(document.getElementById('root')!).render(<App />);
