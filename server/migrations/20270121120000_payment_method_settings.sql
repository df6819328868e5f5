-- Each agent's payment methods as an operator set them in the console (docs/payments.md "Switching on a method for
-- an agent"): which methods are switched on and each adapter's configuration keys. The keys are never stored in
-- clear: `sealed_keys` maps each key's name to its value sealed with AES-256-GCM (payments/settings/seal.ts), the
-- agent, method and key name as associated data. PAYMENT_METHODS stays the bootstrap: a row here overrides the
-- environment's entry for the same agent and method. `version` is the row's optimistic-concurrency version.
create table payment_method_settings (
  agent_id text not null,                    -- an agent of the embed module, or the platform ("powerly")
  method text not null,
  enabled boolean not null default false,
  sealed_keys jsonb not null default '{}'::jsonb,
  version integer not null default 1,
  updated_at timestamptz not null,
  updated_by bigint,
  primary key (agent_id, method)
);
