// The one feedback module: toast (2000 ms), a blocking loading overlay, and message / confirm dialogs, all
// driven imperatively from any screen or flow and rendered once by <FeedbackHost/> in the app shell.
// Screens never render their own message/confirm/retry <Dialog> or toast; only real forms and sheets
// (pickers, card forms, the scanner) use <Dialog> directly.
//   toast(text)                       — polite status, 2000 ms
//   showLoading(label) / hideLoading  — a modal busy indicator (counted: nested calls are fine)
//   showMessage({title, text, …})     — a message dialog with one OK; resolves when closed
//   confirmDialog({title, text, …})   — OK / Cancel (e.g. Retry / Cancel); resolves true or false
import { atom } from 'nanostores';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { Dialog } from './Dialog.tsx';
import { Loading } from './Loading.tsx';

export const TOAST_MS = 2000;

type DialogRole = 'dialog' | 'alertdialog';

interface DialogRequest {
  id: number;
  title: string;
  text?: string;
  /** A secondary line under the text (e.g. an order number). */
  note?: string;
  okLabel?: string;
  cancelLabel?: string;
  /** Message dialogs have no cancel. */
  cancel: boolean;
  role: DialogRole;
  resolve: (ok: boolean) => void;
}

export interface MessageOptions {
  title: string;
  text?: string;
  note?: string;
  okLabel?: string;
  /** Default 'dialog'; an error the user must acknowledge is an 'alertdialog'. */
  role?: DialogRole;
}

export interface ConfirmOptions {
  title: string;
  text?: string;
  note?: string;
  okLabel?: string;
  cancelLabel?: string;
  /** Default 'alertdialog'. */
  role?: DialogRole;
}

export const $dialogs = atom<DialogRequest[]>([]);
export const $loading = atom<{ count: number; label: string }>({ count: 0, label: '' });
export const $toast = atom<{ id: number; text: string } | null>(null);
let seq = 0;
let toastTimer: ReturnType<typeof setTimeout> | undefined;

/** One message at a time, for 2000 ms, announced politely. */
export function toast(text: string): void {
  clearTimeout(toastTimer);
  const id = ++seq;
  $toast.set({ id, text });
  toastTimer = setTimeout(() => {
    if ($toast.get()?.id === id) $toast.set(null);
  }, TOAST_MS);
}

// A message/confirm dialog belongs to the screen that opened it (as when each screen rendered its own):
// leaving that screen (another route path, e.g. the hardware back button) discards it, so a stale Retry or
// Cancel never acts on the next screen. A discarded dialog resolves as cancelled (confirm → false, message →
// done), so the flow that awaits it is never left hanging.
let shownOn = $route.get().path;
$route.subscribe(({ path }) => {
  if (path === shownOn) return;
  shownOn = path;
  const dropped = $dialogs.get();
  if (!dropped.length) return;
  $dialogs.set([]);
  for (const d of dropped) d.resolve(false);
});

function open(req: Omit<DialogRequest, 'id' | 'resolve'>): Promise<boolean> {
  return new Promise((resolve) => {
    $dialogs.set([...$dialogs.get(), { ...req, id: ++seq, resolve }]);
  });
}

function close(id: number, ok: boolean): void {
  const d = $dialogs.get().find((x) => x.id === id);
  $dialogs.set($dialogs.get().filter((x) => x.id !== id));
  d?.resolve(ok);
}

export function showMessage({ role = 'dialog', ...p }: MessageOptions): Promise<void> {
  return open({ ...p, role, cancel: false }).then(() => undefined);
}

/** Resolves true for the OK button, false for Cancel or Escape. */
export function confirmDialog({ role = 'alertdialog', ...p }: ConfirmOptions): Promise<boolean> {
  return open({ ...p, role, cancel: true });
}

export function showLoading(label = ''): void {
  const l = $loading.get();
  $loading.set({ count: l.count + 1, label: label || l.label });
}

export function hideLoading(): void {
  const l = $loading.get();
  $loading.set({ count: Math.max(0, l.count - 1), label: l.count > 1 ? l.label : '' });
}

/** Runs `fn` with the loading overlay shown. */
export async function withLoading<T>(fn: () => Promise<T>, label = ''): Promise<T> {
  showLoading(label);
  try {
    return await fn();
  } finally {
    hideLoading();
  }
}

function Toaster() {
  const t = useStore($toast);
  return (
    <div className="toast-region" role="status" aria-live="polite">
      {t ? (
        <div className="toast" key={t.id}>
          {t.text}
        </div>
      ) : null}
    </div>
  );
}

export function FeedbackHost() {
  const t = useT();
  const dialogs = useStore($dialogs);
  const loading = useStore($loading);
  const top = dialogs[0];
  return (
    <>
      {loading.count > 0 ? (
        <div className="feedback-loading" aria-busy="true">
          <Loading label={loading.label || t('common.loading')} />
        </div>
      ) : null}
      {top ? (
        <Dialog
          key={top.id}
          open
          title={top.title}
          role={top.role}
          onClose={() => close(top.id, false)}
          actions={
            <>
              {top.cancel ? (
                <button type="button" className="button" onClick={() => close(top.id, false)}>
                  {top.cancelLabel ?? t('common.cancel')}
                </button>
              ) : null}
              <button type="button" className="button primary" onClick={() => close(top.id, true)}>
                {top.okLabel ?? t('common.ok')}
              </button>
            </>
          }
        >
          {top.text || top.note ? (
            <>
              {top.text ? <p>{top.text}</p> : null}
              {top.note ? <p className="hint">{top.note}</p> : null}
            </>
          ) : null}
        </Dialog>
      ) : null}
      <Toaster />
    </>
  );
}
