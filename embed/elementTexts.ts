// Loaded after the element's first load (one lazy chunk): its few texts in the five locales, and the web
// vitals reporter. JSON named imports keep only each locale's `embed` table.
import { embed as enUS } from '../locales/en-US.json';
import { embed as zhCN } from '../locales/zh-CN.json';
import { embed as ltLT } from '../locales/lt-LT.json';
import { embed as ptPT } from '../locales/pt-PT.json';
import { embed as esES } from '../locales/es-ES.json';

export type Texts = typeof enUS;
const TEXTS: Record<string, Texts> = { 'en-US': enUS, 'zh-CN': zhCN, 'lt-LT': ltLT, 'pt-PT': ptPT, 'es-ES': esES };

export function textsFor(lang: string | null): Texts {
  return (lang && TEXTS[lang]) || enUS;
}

export { reportWebVitals } from '../src/platform/vitals.ts';
