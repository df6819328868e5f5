// The app shell's pieces: currency per language, the feedback module (toast 2000 ms, message/confirm dialogs,
// loading), the chunk-load timeout and the 3 s loading fallback, the contact form and receipt e-mail rules,
// and the settings screen switching language and currency formatting together.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCALES, LOCALE_CURRENCY, currencyOf } from '../../src/core/lang.ts';
import { formatMoney } from '../../src/core/money.ts';
import {
  $dialogs,
  $loading,
  $toast,
  confirmDialog,
  FeedbackHost,
  showMessage,
  toast,
  withLoading,
  TOAST_MS,
} from '../../src/ui/feedback.tsx';
import {
  ChunkLoadError,
  CHUNK_LOAD_TIMEOUT_MS,
  DelayedLoading,
  LOADING_FALLBACK_MS,
  SPINNER_DELAY_MS,
  withChunkTimeout,
} from '../../src/ui/lazyScreen.tsx';
import { firstMissing } from '../../src/info/ContactForm.tsx';
import { receiptEmail } from '../../src/info/InvoiceEmailBox.tsx';
import Setting from '../../src/info/Setting.tsx';
import { $activeLang, loadLocale } from '../../src/i18n/index.ts';
import { $lang } from '../../src/stores/locale.ts';
import { navigate } from '../../src/stores/router.ts';

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

describe('currency per language (yuan, dollar, EUR — the litas became the euro —, EUR)', () => {
  it('maps each language to its currency', () => {
    expect(currencyOf('zh-CN')).toBe('CNY');
    expect(currencyOf('en-US')).toBe('USD');
    expect(currencyOf('lt-LT')).toBe('EUR');
    expect(currencyOf('pt-PT')).toBe('EUR');
    expect(currencyOf('es-ES')).toBe('EUR');
    expect(Object.keys(LOCALE_CURRENCY).sort()).toEqual([...LOCALES].sort());
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

  it('confirm dialogs take custom labels and a role; Escape is a cancel; focus goes back to the opener', async () => {
    render(<FeedbackHost />);
    const opener = document.createElement('button');
    document.body.append(opener);
    opener.focus();
    let answer: boolean | undefined;
    act(() => {
      void confirmDialog({
        title: 'Orders not closed',
        text: 'You have 1',
        okLabel: 'View orders',
        cancelLabel: 'Not now',
        role: 'dialog',
      }).then((v) => (answer = v));
    });
    const dialog = () => host.querySelector('dialog');
    expect(dialog()?.getAttribute('role')).toBeNull(); // a plain dialog
    expect([...dialog()!.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Not now', 'View orders']);
    await act(async () => dialog()!.dispatchEvent(new Event('cancel', { cancelable: true })));
    expect(answer).toBe(false);
    expect(document.activeElement).toBe(opener);
    // The default confirm is an alertdialog; its title names it, its text describes it.
    act(() => {
      void confirmDialog({ title: 'Payment failed', text: 'Declined', okLabel: 'Retry' }).then((v) => (answer = v));
    });
    expect(dialog()?.getAttribute('role')).toBe('alertdialog');
    const labelled = document.getElementById(dialog()!.getAttribute('aria-labelledby')!);
    expect(labelled?.textContent).toBe('Payment failed');
    expect(document.getElementById(dialog()!.getAttribute('aria-describedby')!)?.textContent).toBe('Declined');
    await act(async () => [...dialog()!.querySelectorAll('button')].find((b) => b.textContent === 'Retry')!.click());
    expect(answer).toBe(true);
    opener.remove();
  });

  it('leaving the screen (another route path) discards its open dialogs as cancelled; a query change does not', async () => {
    navigate('/confirm?price=1', { replace: true });
    render(<FeedbackHost />);
    let answered: boolean | undefined;
    let messaged = false;
    act(() => {
      void confirmDialog({ title: 'Payment failed', okLabel: 'Retry' }).then((v) => (answered = v));
      void showMessage({ title: 'Paid' }).then(() => (messaged = true));
    });
    act(() => navigate('/confirm?price=2', { replace: true }));
    expect(host.querySelector('dialog h2')?.textContent).toBe('Payment failed');
    await act(async () => undefined);
    expect(answered).toBeUndefined();
    act(() => navigate('/order'));
    expect(host.querySelector('dialog')).toBeNull();
    expect($dialogs.get()).toEqual([]);
    await act(async () => undefined);
    // Resolved as cancelled, so the flow awaiting them goes on (its Retry never runs).
    expect(answered).toBe(false);
    expect(messaged).toBe(true);
    // A dialog opened on the new screen is shown as usual.
    act(() => void showMessage({ title: 'Done' }));
    expect(host.querySelector('dialog h2')?.textContent).toBe('Done');
    act(() => $dialogs.set([]));
  });

  it('a message dialog can be an alertdialog and carry a note line', async () => {
    render(<FeedbackHost />);
    act(() => {
      void showMessage({ title: 'Withdrawal requested', text: 'On its way', note: 'Order no. 42' });
      void showMessage({ title: 'Withdrawal failed', text: 'No', role: 'alertdialog' });
    });
    expect(host.querySelector('dialog')?.getAttribute('role')).toBeNull();
    expect(host.querySelector('dialog .hint')?.textContent).toBe('Order no. 42');
    await act(async () => host.querySelector<HTMLButtonElement>('dialog button')!.click());
    expect(host.querySelector('dialog')?.getAttribute('role')).toBe('alertdialog');
    expect(host.querySelector('dialog .hint')).toBeNull();
    await act(async () => host.querySelector<HTMLButtonElement>('dialog button')!.click());
    expect($dialogs.get()).toEqual([]);
  });

  it('every screen uses this module: no other toast, and <Dialog> only for forms, sheets and pickers', () => {
    const files = Object.keys(import.meta.glob('../../src/**/*.{ts,tsx}'));
    const sources = import.meta.glob<string>('../../src/**/*.{ts,tsx}', {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    expect(files.length).toBeGreaterThan(30);
    const withDialog = files
      .filter((f) => sources[f]!.includes('<Dialog'))
      .map((f) => f.replace('../../src/', ''))
      .sort();
    // Real forms / sheets / pickers / the scanner; message, confirm and retry dialogs go through feedback.tsx.
    expect(withDialog).toEqual([
      'auth/AreaPicker.tsx',
      'info/Setting.tsx',
      'map/MapScreen.tsx',
      'map/ScanDialog.tsx',
      // The Wi-Fi sheets: the QR shown to the box while it polls, the traffic detail, the package-variant picker.
      'mifi/QrPickup.tsx',
      'mifi/ScanOrder.tsx',
      'mifi/VariantDialog.tsx',
      'ops/cabinets/parts.tsx',
      'rent/SelectPakage.tsx',
      'ui/feedback.tsx',
      'wallet/SavedCards.tsx',
      'wallet/WalletOut.tsx',
    ]);
    for (const f of files) {
      expect(sources[f], f).not.toMatch(/ui\/toast/);
      expect(sources[f], f).not.toMatch(/\b(window\.)?(alert|confirm)\(/);
    }
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

  it('while a screen loads: blank for 200 ms, then a spinner, then after 3 s the slow message with a reload', () => {
    vi.useFakeTimers();
    expect(LOADING_FALLBACK_MS).toBe(3000);
    expect(SPINNER_DELAY_MS).toBe(200);
    const onReload = vi.fn();
    render(<DelayedLoading onReload={onReload} />);
    const spinner = () => host.querySelector('.loading[role="status"]');
    const reload = () => [...host.querySelectorAll('button')].find((b) => b.textContent === 'Reload');
    // No flash for a screen that arrives at once.
    expect(spinner()).toBeNull();
    expect(host.querySelector('.screen-pending[aria-busy="true"]')).not.toBeNull();
    void act(() => vi.advanceTimersByTime(199));
    expect(spinner()).toBeNull();
    // Then a spinner at once — not seconds of blank screen.
    void act(() => vi.advanceTimersByTime(1));
    expect(spinner()?.textContent).toContain('Loading');
    expect(host.textContent).not.toContain('taking longer');
    expect(reload()).toBeUndefined();
    void act(() => vi.advanceTimersByTime(2799));
    expect(reload()).toBeUndefined();
    // 3 s and still loading: the fallback message and a reload, the spinner stays.
    void act(() => vi.advanceTimersByTime(1));
    expect(host.querySelector('.screen-slow')?.textContent).toContain('This is taking longer than usual.');
    expect(spinner()).not.toBeNull();
    void act(() => reload()!.click());
    expect(onReload).toHaveBeenCalledTimes(1);
  });

  it('the loading fallback follows the language', async () => {
    vi.useFakeTimers();
    await act(async () => {
      $lang.set('pt-PT');
      await loadLocale('pt-PT');
    });
    render(<DelayedLoading onReload={() => undefined} />);
    void act(() => vi.advanceTimersByTime(LOADING_FALLBACK_MS));
    expect(host.querySelector('.screen-slow')?.textContent).toContain('Está a demorar mais do que o habitual.');
    expect(host.querySelector('.screen-slow button')?.textContent).toBe('Recarregar');
  });

  it('a screen that arrives stops the timers: no spinner or message afterwards', () => {
    vi.useFakeTimers();
    render(<DelayedLoading onReload={() => undefined} />);
    void act(() => vi.advanceTimersByTime(100));
    void act(() => root!.render(<p>screen</p>));
    void act(() => vi.advanceTimersByTime(10_000));
    expect(host.innerHTML).toBe('<p>screen</p>');
    expect(vi.getTimerCount()).toBe(0);
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
    expect(sample()).toBe(`Euras · ${formatMoney(123456, 'EUR', 'lt-LT')}`);
  });
});
