// The app shell's pieces: currency per language, the feedback module (toast 2000 ms, message/confirm dialogs,
// loading), the chunk-load timeout and the 3 s loading fallback, the contact form and receipt e-mail rules,
// and the settings screen switching language and currency formatting together.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCALES, LOCALE_CURRENCY, currencyOf, SHORT_LOCALES } from '../../src/core/lang.ts';
import { formatMoney } from '../../src/core/money.ts';
import { $dialogs, $loading, $toast, confirmDialog, FeedbackHost, showMessage, toast, withLoading, TOAST_MS } from '../../src/ui/feedback.tsx';
import { ChunkLoadError, CHUNK_LOAD_TIMEOUT_MS, DelayedLoading, LOADING_FALLBACK_MS, withChunkTimeout } from '../../src/ui/lazyScreen.tsx';
import { firstMissing } from '../../src/info/ContactForm.tsx';
import { receiptEmail } from '../../src/info/InvoiceEmailBox.tsx';
import Setting from '../../src/info/Setting.tsx';
import { $activeLang, loadLocale } from '../../src/i18n/index.ts';
import { $lang } from '../../src/stores/locale.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

let root: Root | null = null;
let host: HTMLElement;
beforeAll(() => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  host?.remove();
  vi.useRealTimers();
  $lang.set('en-US');
  $activeLang.set('en-US');
});

function render(node: React.ReactNode) {
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(node));
}

describe('currency per language (spec §1: yuan, dollar, LTL, EUR)', () => {
  it('maps each language to its currency', () => {
    expect(currencyOf('zh-CN')).toBe('CNY');
    expect(currencyOf('en-US')).toBe('USD');
    expect(currencyOf('lt-LT')).toBe('LTL');
    expect(currencyOf('pt-PT')).toBe('EUR');
    expect(currencyOf('es-ES')).toBe('EUR');
    expect(Object.keys(LOCALE_CURRENCY).sort()).toEqual([...LOCALES].sort());
    expect([...SHORT_LOCALES].sort()).toEqual(['en-US', 'lt-LT', 'pt-PT', 'zh-CN']);
  });
});

describe('feedback module', () => {
  it('a toast lasts 2000 ms', () => {
    vi.useFakeTimers();
    expect(TOAST_MS).toBe(2000);
    toast('Hello');
    expect($toast.get()?.text).toBe('Hello');
    vi.advanceTimersByTime(1999);
    expect($toast.get()?.text).toBe('Hello');
    vi.advanceTimersByTime(1);
    expect($toast.get()).toBeNull();
  });

  it('message and confirm dialogs resolve from their buttons, one at a time', async () => {
    render(<FeedbackHost />);
    let confirmed: boolean | undefined;
    let messaged = false;
    act(() => {
      void confirmDialog({ title: 'Delete?', text: 'Really' }).then((v) => (confirmed = v));
      void showMessage({ title: 'Done' }).then(() => (messaged = true));
    });
    expect(host.querySelector('dialog h2')?.textContent).toBe('Delete?');
    const buttons = () => [...host.querySelectorAll('dialog button')] as HTMLButtonElement[];
    expect(buttons().map((b) => b.textContent)).toEqual(['Cancel', 'OK']);
    await act(async () => buttons()[0]!.click());
    expect(confirmed).toBe(false);
    expect(host.querySelector('dialog h2')?.textContent).toBe('Done');
    expect(buttons().map((b) => b.textContent)).toEqual(['OK']); // a message has no cancel
    await act(async () => buttons()[0]!.click());
    expect(messaged).toBe(true);
    expect($dialogs.get()).toEqual([]);
  });

  it('withLoading shows the overlay while the work runs and hides it after a failure too', async () => {
    render(<FeedbackHost />);
    let release!: () => void;
    let p!: Promise<void>;
    act(() => {
      p = withLoading(() => new Promise<void>((_, reject) => (release = () => reject(new Error('x')))), 'Sending…');
    });
    expect(host.querySelector('.feedback-loading')?.textContent).toContain('Sending…');
    await act(async () => {
      release();
      await p.catch(() => undefined);
    });
    expect($loading.get().count).toBe(0);
    expect(host.querySelector('.feedback-loading')).toBeNull();
  });
});

describe('lazily loaded screens', () => {
  it('a chunk that has not arrived within 120000 ms fails with ChunkLoadError', async () => {
    vi.useFakeTimers();
    expect(CHUNK_LOAD_TIMEOUT_MS).toBe(120_000);
    const p = withChunkTimeout(new Promise(() => undefined));
    const caught = p.catch((e: unknown) => e);
    vi.advanceTimersByTime(119_999);
    await Promise.resolve();
    vi.advanceTimersByTime(1);
    expect(await caught).toBeInstanceOf(ChunkLoadError);
    await expect(withChunkTimeout(Promise.resolve(7))).resolves.toBe(7);
  });

  it('the loading fallback appears after 3 s, not before', () => {
    vi.useFakeTimers();
    expect(LOADING_FALLBACK_MS).toBe(3000);
    render(<DelayedLoading />);
    expect(host.querySelector('[role="status"]')).toBeNull();
    act(() => vi.advanceTimersByTime(2999));
    expect(host.querySelector('[role="status"]')).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(host.querySelector('[role="status"]')?.textContent).toContain('Loading');
  });
});

describe('form rules', () => {
  const full = { Name: 'Ana', Email: 'a@b.pt', Mobile: '1', nation: 'PT', Content: '' };
  it('contact form: the first blank required field (after trim) with its own message; Content free', () => {
    expect(firstMissing(full)).toBeNull();
    expect(firstMissing({ ...full, Name: '  ' })).toEqual(['Name', 'about.form.nameRequired']);
    expect(firstMissing({ ...full, Email: '' })).toEqual(['Email', 'about.form.emailRequired']);
    expect(firstMissing({ ...full, Mobile: '\t' })).toEqual(['Mobile', 'about.form.mobileRequired']);
    expect(firstMissing({ ...full, nation: ' ' })).toEqual(['nation', 'about.form.nationRequired']);
  });
  it('receipt e-mail: required and trimmed', () => {
    expect(receiptEmail('  a@b.pt ')).toBe('a@b.pt');
    expect(receiptEmail('   ')).toBeNull();
  });
});

describe('#/setting', () => {
  it('changing the language switches the texts and the currency formatting in the same render', async () => {
    await loadLocale('en-US');
    render(<Setting />);
    const sample = () => host.querySelector('[data-testid="currency-sample"]')?.textContent;
    expect(host.querySelector('h1')?.textContent).toBe('Settings');
    expect(sample()).toBe(`Dollar · ${formatMoney(123456, 'USD', 'en-US')}`);
    await act(async () => {
      $lang.set('zh-CN');
      await loadLocale('zh-CN');
    });
    expect(host.querySelector('h1')?.textContent).toBe('设置');
    expect(sample()).toBe(`元 · ${formatMoney(123456, 'CNY', 'zh-CN')}`);
    await act(async () => {
      $lang.set('lt-LT');
      await loadLocale('lt-LT');
    });
    expect(host.querySelector('h1')?.textContent).toBe('Nustatymai');
    expect(sample()).toBe(`Litas · ${formatMoney(123456, 'LTL', 'lt-LT')}`);
  });
});
