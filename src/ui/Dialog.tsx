// Modal dialog on the platform's <dialog>: showModal traps focus, Escape closes, focus returns to the opener.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface DialogProps {
  open: boolean;
  title: string;
  children?: ReactNode;
  /** Buttons; each should close or act. */
  actions: ReactNode;
  /** Escape or a close: the dialog asks its owner to close it. */
  onClose: () => void;
  role?: 'dialog' | 'alertdialog';
}

export function Dialog({ open, title, children, actions, onClose, role = 'dialog' }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const shown = useRef(false);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      shown.current = true;
      if (typeof d.showModal === 'function') d.showModal();
      else d.setAttribute('open', '');
    } else if (!open && d.open) {
      shown.current = false;
      if (typeof d.close === 'function') d.close();
      else d.removeAttribute('open');
      const back = opener.current as HTMLElement | null;
      if (back && back !== document.body && back.isConnected) back.focus();
    }
  }, [open]);

  // Unmounted while open (a feedback dialog that was answered): focus goes back to the opener too.
  useEffect(
    () => () => {
      if (!shown.current) return;
      const back = opener.current as HTMLElement | null;
      if (back && back !== document.body && back.isConnected) back.focus();
    },
    [],
  );

  return (
    <dialog
      ref={ref}
      className="dialog"
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children ? (
        <div id={bodyId} className="dialog-body">
          {children}
        </div>
      ) : null}
      <div className="dialog-actions">{actions}</div>
    </dialog>
  );
}
