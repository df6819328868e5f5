// A screen's agent filter: the agents the person may see (the agents' list for those who may read the fleet, else
// the agents of their own memberships), with "all agents" first. The server still scopes every answer.
import { useEffect, useState } from 'react';
import type { AgentPage } from '../contract/ops/fleet.ts';
import type { Me } from '../contract/ops/staff.ts';
import { useT } from '../i18n/index.ts';
import { opsCall } from './api.ts';

interface Props {
  me: Me;
  label: string;
  value: string;
  onChange: (agentId: string) => void;
}

export function AgentSelect({ me, label, value, onChange }: Props) {
  const t = useT();
  const own = me.memberships.filter((m) => m.agentId !== '*').map((m) => ({ id: m.agentId, name: m.agentId }));
  const [agents, setAgents] = useState(own);
  const readsFleet = me.permissions.includes('fleet.read');
  useEffect(() => {
    if (!readsFleet) return;
    let live = true;
    opsCall<AgentPage>('GET', '/agents?limit=200&sort=name').then(
      (p) => live && setAgents(p.items.map((a) => ({ id: a.id, name: a.name }))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [readsFleet]);
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{t('ops.filter.allAgents')}</option>
        {agents.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name === a.id ? a.id : `${a.name} (${a.id})`}
          </option>
        ))}
      </select>
    </label>
  );
}
