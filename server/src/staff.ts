// The back office's staff, put together for buildApp (app.ts): who they are (StaffService), their sessions, and
// single sign-on: the configured identity provider, or in test mode the sandbox's own (docs/architecture.md
// "Back office").
import type { AppDeps } from './app-deps.ts';
import type { AuditService } from './modules/audit/service.ts';
import type { Mailer } from './modules/notify/mailer.ts';
import { StaffRepository } from './modules/staff/repository.ts';
import { injectFetch, SANDBOX_OIDC_CLIENT, SANDBOX_OIDC_PATH, SandboxOidc } from './modules/staff/sandbox-oidc.ts';
import { StaffService } from './modules/staff/service.ts';
import { DEFAULT_SESSION_SETTINGS, StaffSessions } from './modules/staff/sessions.ts';
import { SingleSignOn } from './modules/staff/sso.ts';
import { SecretsRepository } from './secrets/repository.ts';

export async function staffServices(o: {
  app: Parameters<typeof injectFetch>[0];
  deps: AppDeps;
  audit: AuditService;
  mailer: Mailer;
  /** Whether an agent exists (the embed module's agents). */
  agentExists: (id: string) => Promise<boolean>;
  sandboxOn: boolean;
}) {
  const { app, deps, audit, mailer, agentExists, sandboxOn } = o;
  const { db, clock } = deps;
  const staffRepo = new StaffRepository(db);
  const staff = new StaffService({
    db,
    repo: staffRepo,
    clock,
    audit,
    mailer,
    agentExists,
  });
  const staffSessions = new StaffSessions(staffRepo, clock, deps.ops?.sessions ?? DEFAULT_SESSION_SETTINGS);
  const opsOrigin = deps.ops?.origin ?? deps.publicUrl;
  const sandboxOidc =
    sandboxOn && !deps.ops?.sso
      ? await SandboxOidc.create(
          clock,
          await new SecretsRepository(db).get('sandbox.ops-oidc-client-secret', clock.now()),
        )
      : undefined;
  const sso = deps.ops?.sso
    ? new SingleSignOn(deps.ops.sso, staffRepo, clock)
    : sandboxOidc
      ? new SingleSignOn(
          {
            issuer: (origin) => `${origin}${SANDBOX_OIDC_PATH}`,
            clientId: SANDBOX_OIDC_CLIENT,
            clientSecret: sandboxOidc.clientSecret,
            insecure: true,
            fetch: injectFetch(app),
          },
          staffRepo,
          clock,
        )
      : undefined;
  return { staffRepo, staff, staffSessions, opsOrigin, sandboxOidc, sso };
}
