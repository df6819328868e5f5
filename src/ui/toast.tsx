// Toast: one message at a time, 2000 ms (spec §9), announced politely.
import { atom } from 'nanostores';
import { useStore } from '@nanostores/react';

export const TOAST_MS = 2000;
export const $toast = atom<{ id: number; text: string } | null>(null);
let timer: ReturnType<typeof setTimeout> | undefined;
let seq = 0;

export function toast(text: string): void {
  clearTimeout(timer);
  const id = ++seq;
  $toast.set({ id, text });
  timer = setTimeout(() => {
    if ($toast.get()?.id === id) $toast.set(null);
  }, TOAST_MS);
}

export function Toaster() {
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
