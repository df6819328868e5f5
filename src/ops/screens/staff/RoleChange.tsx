// A person's role at one agent, saved with If-Match on the version the list showed (someone else's save since
// then: a 409 that says so, nothing overwritten). The caller grants only what their own role allows; the server decides.
import { useEffect, useId, useRef, useState } from 'react';
import type { Me, StaffShape } from '../../../contract/ops/staff.ts';
import { STAFF_ROLES, type StaffRole } from '../../../core/opsAccess.ts';
import { useT } from '../../../i18n/index.ts';
import { opsCallTagged } from '../../api.ts';
import { Field, SaveRow, Select } from '../../form.tsx';
import { MembershipEnd } from './MembershipEnd.tsx';

export function RoleChange({
  me,
  person,
  onClose,
  onSaved,
}: {
  me: Me;
  person: StaffShape;
  onClose: () => void;
  onSaved: (s: StaffShape) => void;
}) {
  const t = useT();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const first =
    person.memberships.find(
      (m) => m.agentId === '*' || me.memberships.some((x) => x.agentId === '*' || x.agentId === m.agentId),
    ) ?? person.memberships[0];
  const [agentId, setAgentId] = useState(
    first?.agentId ?? me.memberships.find((m) => m.agentId !== '*')?.agentId ?? '',
  );
  const current = person.memberships.find((m) => m.agentId === agentId);
  const [role, setRole] = useState<StaffRole>(current?.role ?? 'support');
  const [venues, setVenues] = useState(current?.venueIds.join(', ') ?? '');
  const [reason, setReason] = useState('');
  const [saved, setSaved] = useState('');
  const [version, setVersion] = useState(person.version);
  const [error, setError] = useState<unknown>();
  useEffect(() => heading.current?.focus(), []);
  const pick = (a: string) => {
    setAgentId(a);
    const m = person.memberships.find((x) => x.agentId === a);
    if (m) {
      setRole(m.role);
      setVenues(m.venueIds.join(', '));
    }
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setSaved('');
    try {
      const venueIds =
        role === 'venue_partner'
          ? venues
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean)
          : [];
      const r = await opsCallTagged<StaffShape>(
        'PUT',
        `/staff/${encodeURIComponent(person.id)}/memberships/${encodeURIComponent(agentId)}`,
        { role, venueIds, reason },
        { 'if-match': `"v${version}"` },
      );
      setVersion(r.data.version);
      onSaved(r.data);
      setReason('');
      setSaved(t('ops.staff.roleSaved'));
    } catch (err) {
      setError(err);
    }
  };
  const agents = [...new Set([...person.memberships.map((m) => m.agentId), ...me.memberships.map((m) => m.agentId)])];
  return (
    <>
      <section aria-labelledby={headingId}>
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          {t('ops.staff.changeRoleOf', { name: person.name })}
        </h2>
        <form onSubmit={(e) => void submit(e)}>
          <div className="ops-form">
            <Field
              label={t('ops.invite.agent')}
              required
              maxLength={64}
              value={agentId}
              onValue={pick}
              list="ops-role-agents"
            />
            <datalist id="ops-role-agents">
              {agents.map((a) => (
                <option key={a} value={a} />
              ))}
            </datalist>
            <Select
              label={t('ops.invite.role')}
              value={role}
              onValue={setRole}
              options={STAFF_ROLES.map((r) => [r, t(`ops.role.${r}`)])}
            />
            {role === 'venue_partner' && (
              <Field label={t('ops.invite.venues')} required value={venues} onValue={setVenues} />
            )}
          </div>
          <SaveRow reason={reason} onReason={setReason} saved={saved} error={error} />
        </form>
        <button type="button" onClick={onClose}>
          {t('ops.staff.close')}
        </button>
      </section>
      {/* Beside the role form, its own region: ending the membership at the agent picked above. */}
      {current && (
        <MembershipEnd
          key={agentId}
          personId={person.id}
          who={person.name}
          agentId={agentId}
          version={version}
          onEnded={(s) => {
            setVersion(s.version);
            onSaved(s);
          }}
        />
      )}
    </>
  );
}
