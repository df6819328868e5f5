// Ending one membership of a person (their account and other memberships stay), with the reason the audit log
// keeps, saved with If-Match on the person's version: someone else's save since is a 409 that says so. Their open
// sessions end; the platform's last owner cannot go (the server says so in the operator's language).
import { useId, useState } from 'react';
import type { StaffShape } from '../../../contract/ops/staff.ts';
import { useT } from '../../../i18n/index.ts';
import { confirmDialog } from '../../../ui/feedback.tsx';
import { opsCallTagged } from '../../api.ts';
import { SaveRow } from '../../form.tsx';

interface Props {
  personId: string;
  /** What is said of the person in the confirmation: their name, or "you". */
  who: string;
  agentId: string;
  version: number;
  onEnded: (s: StaffShape) => void;
}

export function MembershipEnd({ personId, who, agentId, version, onEnded }: Props) {
  const t = useT();
  const headingId = useId();
  const [reason, setReason] = useState('');
  const [saved, setSaved] = useState('');
  const [error, setError] = useState<unknown>();
  const agent = agentId === '*' ? t('ops.staff.allAgents') : agentId;
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved('');
    if (
      !(await confirmDialog({
        title: t('ops.membership.end', { agent }),
        text: t('ops.membership.confirm', { who, agent }),
      }))
    )
      return;
    try {
      const r = await opsCallTagged<StaffShape>(
        'POST',
        `/staff/${encodeURIComponent(personId)}/memberships/${encodeURIComponent(agentId)}/end`,
        { reason },
        { 'if-match': `"v${version}"` },
      );
      setReason('');
      setSaved(t('ops.membership.ended', { agent }));
      onEnded(r.data);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>{t('ops.membership.end', { agent })}</h3>
      <p>{t('ops.membership.lead')}</p>
      <form onSubmit={(e) => void submit(e)}>
        <SaveRow reason={reason} onReason={setReason} label={t('ops.membership.submit')} saved={saved} error={error} />
      </form>
    </section>
  );
}
