// Passkeys (WebAuthn) with SimpleWebAuthn: registration (a signed-in person, or an invited one accepting) and
// sign-in (discoverable credentials: no e-mail typed). Each ceremony's challenge is kept in staff_ceremonies under
// a random id in a short-lived cookie, so any API process can verify the answer, and each is used once.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest } from '../../lib/errors.ts';
import { randomToken } from '../../lib/ids.ts';
import type { StaffRepository, StaffRow } from './repository.ts';

const CEREMONY_MS = 5 * 60_000;

/** Where the console runs: the relying party's origin and id (its host name). */
export interface RelyingParty {
  origin: string;
  rpId: string;
}

export const passkeyRefused = () => new AppError(401, 'ops.error.passkey');

export class Passkeys {
  constructor(
    private readonly repo: StaffRepository,
    private readonly clock: Clock,
    private readonly rpName = 'Powerly back office',
  ) {}

  private expires() {
    return new Date(this.clock.now().getTime() + CEREMONY_MS);
  }

  /** Options to create a passkey for `staff`, and the ceremony's id. */
  async registrationOptions(
    rp: RelyingParty,
    staff: { id: string; email: string; name: string },
    kind = 'passkey-register',
  ) {
    const existing = staff.id ? await this.repo.passkeysOf(staff.id) : [];
    const options = await generateRegistrationOptions({
      rpName: this.rpName,
      rpID: rp.rpId,
      userName: staff.email,
      userDisplayName: staff.name,
      userID: new TextEncoder().encode(staff.id || staff.email),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const ceremony = randomToken();
    await this.repo.insertCeremony(ceremony, {
      kind,
      challenge: options.challenge,
      staff_id: staff.id || null,
      verifier: null,
      nonce: null,
      expires_at: this.expires(),
    });
    return { options, ceremony };
  }

  /** Verifies a registration answer of ceremony `id`; the new credential (not yet stored). */
  async verifyRegistration(rp: RelyingParty, id: string | undefined, response: unknown, kind = 'passkey-register') {
    const c = id ? await this.repo.takeCeremony(id, kind) : undefined;
    if (!c || new Date(c.expires_at) <= this.clock.now()) throw badRequest('ops.error.ceremony');
    const out = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: c.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserVerification: false,
    }).catch(() => ({ verified: false as const }));
    if (!out.verified) throw passkeyRefused();
    const cred = out.registrationInfo.credential;
    return {
      staffId: c.staff_id,
      credentialId: cred.id,
      publicKey: cred.publicKey,
      counter: cred.counter,
      transports: cred.transports ?? [],
    };
  }

  async loginOptions(rp: RelyingParty) {
    const options = await generateAuthenticationOptions({ rpID: rp.rpId, userVerification: 'preferred' });
    const ceremony = randomToken();
    await this.repo.insertCeremony(ceremony, {
      kind: 'passkey-login',
      challenge: options.challenge,
      staff_id: null,
      verifier: null,
      nonce: null,
      expires_at: this.expires(),
    });
    return { options, ceremony };
  }

  /** The person whose passkey signed the challenge of ceremony `id`; 401 for anything else. */
  async verifyLogin(rp: RelyingParty, id: string | undefined, response: { id: string }): Promise<StaffRow> {
    const c = id ? await this.repo.takeCeremony(id, 'passkey-login') : undefined;
    if (!c || new Date(c.expires_at) <= this.clock.now()) throw badRequest('ops.error.ceremony');
    const key = await this.repo.passkey(response.id);
    if (!key) throw passkeyRefused();
    const out = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: c.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      credential: {
        id: key.credential_id,
        publicKey: new Uint8Array(key.public_key),
        counter: Number(key.counter),
        transports: key.transports as never,
      },
      requireUserVerification: false,
    }).catch(() => ({ verified: false, authenticationInfo: undefined }));
    if (!out.verified || !out.authenticationInfo) throw passkeyRefused();
    await this.repo.usePasskey(key.credential_id, out.authenticationInfo.newCounter, this.clock.now());
    const staff = await this.repo.byId(key.staff_id);
    if (!staff || staff.disabled_at) throw passkeyRefused();
    return staff;
  }
}
