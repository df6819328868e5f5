// Small pieces of the cabinet screens: the online badge, times in the operator's language, the vendor family's
// name, and the dialog that asks the reason of a write (stored with it in the audit log).
import { useId, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { CABINET_VENDORS } from '../../contract/ops/cabinets.ts';
import { $activeLang, useT, type T } from '../../i18n/index.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { Problem } from '../screens/Problem.tsx';

export function OnlineBadge({ online }: { online: boolean }) {
  const t = useT();
  return (
    <span className={online ? 'ops-badge ops-online' : 'ops-badge ops-offline'}>
      {online ? t('ops.cabinets.online') : t('ops.cabinets.offline')}
    </span>
  );
}

export function vendorName(t: T, vendor: string): string {
  return (CABINET_VENDORS as readonly string[]).includes(vendor) ? t(`ops.cabinets.vendors.${vendor}`) : vendor;
}

export function useWhen() {
  const lang = useStore($activeLang);
  return (iso: string) =>
    new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso));
}

/** Charge and temperature in the operator's language. */
export function useNumbers() {
  const lang = useStore($activeLang);
  return {
    percent: (n: number) => new Intl.NumberFormat(lang, { style: 'percent' }).format(n / 100),
    celsius: (n: number) =>
      new Intl.NumberFormat(lang, { style: 'unit', unit: 'celsius', maximumFractionDigits: 1 }).format(n),
  };
}

export function heartbeatText(t: T, iso: string | null, lang = $activeLang.get()): string {
  return iso
    ? new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso))
    : t('ops.cabinets.never');
}

/** A reason field: required, 3 to 500 characters (the ops API's Reason). */
export function ReasonField({
  value,
  onChange,
  autoFocus,
}: {
  value: string;
  onChange: (v: string) => void;
  autoFocus?: boolean;
}) {
  const t = useT();
  return (
    <label>
      {t('ops.reason')}
      <input
        autoFocus={autoFocus}
        required
        minLength={3}
        maxLength={500}
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    </label>
  );
}

/**
 * A confirmation that asks why: `act(reason)` runs on submit; an error stays in the dialog, success closes it.
 * Focus goes into the reason field and back to the opener afterwards (ui/Dialog).
 */
export function ReasonDialog({
  open,
  title,
  lead,
  confirm,
  act,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  lead?: string;
  confirm: string;
  act: (reason: string) => Promise<void>;
  onClose: () => void;
  children?: ReactNode;
}) {
  const t = useT();
  const formId = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const close = () => {
    setReason('');
    setError(undefined);
    onClose();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await act(reason);
      close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={title}
      onClose={close}
      actions={
        <>
          <button type="button" onClick={close}>
            {t('ops.cabinets.cancel')}
          </button>
          <button type="submit" form={formId} className="ops-primary" disabled={busy}>
            {confirm}
          </button>
        </>
      }
    >
      {lead && <p>{lead}</p>}
      {children}
      <form id={formId} className="ops-form" onSubmit={(e) => void submit(e)}>
        <ReasonField value={reason} onChange={setReason} autoFocus />
      </form>
      <Problem error={error} />
    </Dialog>
  );
}
