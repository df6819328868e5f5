// The one feedback module: toast (2000 ms), a blocking loading overlay, and message / confirm dialogs, all
// driven imperatively from any screen or flow and rendered once by <FeedbackHost/> in the app shell.
//   toast(text)                       — polite status, 2000 ms (spec §9)
//   showLoading(label) / hideLoading  — a modal busy indicator (counted: nested calls are fine)
//   showMessage({title, text})        — a message dialog with one OK; resolves when closed
//   confirmDialog({title, text, …})   — OK / Cancel; resolves true or false
import { atom } from 'nanostores';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { Dialog } from './Dialog.tsx';
import { Loading } from './Loading.tsx';
import { Toaster, toast, TOAST_MS } from './toast.tsx';

export { toast, TOAST_MS };

interface DialogRequest {
  id: number;
  title: string;
  text?: string;
  okLabel?: string;
  cancelLabel?: string;
  /** Message dialogs have no cancel. */
  cancel: boolean;
  resolve: (ok: boolean) => void;
}

export const $dialogs = atom<DialogRequest[]>([]);
export const $loading = atom<{ count: number; label: string }>({ count: 0, label: '' });
let seq = 0;

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

export function showMessage(p: { title: string; text?: string; okLabel?: string }): Promise<void> {
  return open({ ...p, cancel: false }).then(() => undefined);
}

export function confirmDialog(p: { title: string; text?: string; okLabel?: string; cancelLabel?: string }): Promise<boolean> {
  return open({ ...p, cancel: true });
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
          role={top.cancel ? 'alertdialog' : 'dialog'}
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
          {top.text ? <p>{top.text}</p> : null}
        </Dialog>
      ) : null}
      <Toaster />
    </>
  );
}
