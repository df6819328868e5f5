// PayPal's REST API as PaypalMethod (paypal.ts) calls it: the OAuth token, one call with PayPal's errors, and the
// state of an order, capture, authorisation or payout read from PayPal's objects.
import type { AdapterDeps, ExternalState, StatusResult } from './adapter.ts';
import { ProviderError } from './adapter.ts';
import { httpClient, readJson } from './http.ts';
import type { PaypalConfig } from './paypal.ts';
import {
  PAYPAL_LIVE,
  PAYOUT_FAILED,
  fromPaypalValue,
  type Money,
  type Capture,
  type Authorization,
  type Order,
  type PaypalErrorBody,
  PaypalError,
  parseRef,
  captureState,
  authorizationState,
} from './paypal-wire.ts';

/** The provider's API as PaypalMethod calls it: the connection and the helpers its wire operations share. */
export function paypalWire(config: PaypalConfig, deps: AdapterDeps) {
  const base = (config.apiBase ?? PAYPAL_LIVE).replace(/\/+$/, '');
  let token: { value: string; expiresAt: number } | null = null;

  const http = httpClient('PayPal', deps);
  const parse = <T>(text: string, status: number) => readJson<T>('PayPal', { text, status });

  let pending: Promise<string> | null = null;

  /** The bearer token: cached until shortly before it expires; calls made while one is fetched share it. */
  function accessToken(force = false): Promise<string> {
    if (!force && token && deps.now().getTime() < token.expiresAt) return Promise.resolve(token.value);
    pending ??= fetchToken().finally(() => {
      pending = null;
    });
    return pending;
  }

  async function fetchToken(): Promise<string> {
    const now = deps.now().getTime();
    const basic = Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64');
    const { status, body } = await http.json<{
      access_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    }>({
      method: 'POST',
      url: `${base}/v1/oauth2/token`,
      headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
      form: { grant_type: 'client_credentials' },
    });
    if (status !== 200 || !body.access_token) {
      throw new ProviderError(
        body.error ?? 'AUTHENTICATION_FAILURE',
        body.error_description ?? `PayPal token request failed (${status})`,
        status,
      );
    }
    // Renewed a minute before it expires (halfway through a token shorter than two minutes).
    const life = (body.expires_in ?? 0) * 1000;
    token = { value: body.access_token, expiresAt: now + (life > 120_000 ? life - 60_000 : life / 2) };
    return token.value;
  }

  /** One REST call: JSON in and out, the bearer token, PayPal-Request-Id on POSTs; PayPal's errors thrown. */
  async function api<T>(
    method: 'GET' | 'POST',
    path: string,
    opts: { body?: unknown; rawBody?: string; requestId?: string } = {},
  ): Promise<{ status: number; body: T }> {
    for (let attempt = 0; ; attempt++) {
      const bearer = await accessToken(attempt > 0);
      const headers: Record<string, string> = {
        authorization: `Bearer ${bearer}`,
        accept: 'application/json',
        prefer: 'return=representation',
      };
      let payload: string | undefined;
      if (method === 'POST') {
        headers['content-type'] = 'application/json';
        payload = opts.rawBody ?? JSON.stringify(opts.body ?? {});
        if (opts.requestId) headers['paypal-request-id'] = opts.requestId;
      }
      const { status, text } = await http.send({
        method,
        url: `${base}${path}`,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
      // A token PayPal no longer knows (revoked, expired early): fetched again once.
      if (status === 401 && attempt === 0) continue;
      const body = parse<T & PaypalErrorBody>(text, status);
      if (status >= 200 && status < 300) return { status, body };
      const detail = body.details?.[0];
      const code = detail?.issue ?? body.name ?? body.error ?? `http_${status}`;
      throw new PaypalError(
        code,
        detail?.description ?? body.message ?? body.error_description ?? `PayPal answered ${status}`,
        status,
        body,
      );
    }
  }

  const getOrder = async (id: string) =>
    (await api<Order>('GET', `/v2/checkout/orders/${encodeURIComponent(id)}`)).body;
  const getCapture = async (id: string) =>
    (await api<Capture>('GET', `/v2/payments/captures/${encodeURIComponent(id)}`)).body;
  const getAuthorization = async (id: string) =>
    (await api<Authorization>('GET', `/v2/payments/authorizations/${encodeURIComponent(id)}`)).body;

  const money = (m: Money | undefined) =>
    m ? { amount: fromPaypalValue(m.value, m.currency_code), currency: m.currency_code } : {};

  function fromCapture(c: Capture): StatusResult {
    const state = captureState(c);
    return {
      ref: `capture:${c.id}`,
      state,
      ...money(c.amount),
      ...(state === 'failed' ? { failureCode: c.status_details?.reason ?? c.status } : {}),
    };
  }

  /** The state of a completed (or any) order from the payments it holds. */
  async function fromOrder(order: Order): Promise<StatusResult> {
    const unit = order.purchase_units?.[0];
    const payments = unit?.payments ?? {};
    const captures = payments.captures ?? [];
    const auths = payments.authorizations ?? [];
    if (order.status !== 'COMPLETED') {
      const state: ExternalState = order.status === 'VOIDED' ? 'cancelled' : 'pending';
      return { ref: `order:${order.id}`, state, ...money(unit?.amount) };
    }
    const auth = auths[auths.length - 1];
    if (auth) return fromAuthorization(auth, order);
    const capture = captures.find((c) => captureState(c) === 'paid') ?? captures[captures.length - 1];
    if (capture) return fromCapture(capture);
    return { ref: `order:${order.id}`, state: 'pending', ...money(unit?.amount) };
  }

  /** An authorisation: held, released, refused, or captured (then the capture is what is refunded later). */
  async function fromAuthorization(a: Authorization, order?: Order): Promise<StatusResult> {
    const state = authorizationState(a);
    if (state === 'paid') {
      const o =
        order ??
        (a.supplementary_data?.related_ids?.order_id
          ? await getOrder(a.supplementary_data.related_ids.order_id)
          : undefined);
      const capture = capturesOf(o, a.id).find((c) => captureState(c) === 'paid');
      if (capture) return fromCapture(capture);
    }
    return {
      ref: `auth:${a.id}`,
      state,
      ...money(a.amount),
      ...(state === 'failed' ? { failureCode: a.status_details?.reason ?? a.status } : {}),
    };
  }

  /** The captures of an order that belong to an authorisation (their `up` link names it). */
  function capturesOf(order: Order | undefined, authId: string): Capture[] {
    const captures = order?.purchase_units?.[0]?.payments?.captures ?? [];
    const linked = captures.filter((c) =>
      c.links?.some((l) => l.rel === 'up' && l.href.endsWith(`/authorizations/${authId}`)),
    );
    return linked.length ? linked : captures;
  }

  async function status(ref: string): Promise<StatusResult> {
    const { kind, id } = parseRef(ref);
    if (kind === 'capture') return fromCapture(await getCapture(id));
    if (kind === 'auth') return fromAuthorization(await getAuthorization(id));
    if (kind === 'payout') {
      // A batch SUCCESS only means it was processed: the item's transaction_status says whether the payee got it.
      const { body } = await api<{
        batch_header?: { batch_status?: string };
        items?: {
          transaction_status?: string;
          errors?: { name?: string };
          payout_item?: { amount?: { value: string; currency: string } };
        }[];
      }>('GET', `/v1/payments/payouts/${encodeURIComponent(id)}`);
      const item = body.items?.[0];
      const batch = body.batch_header?.batch_status;
      const t = item?.transaction_status;
      const state: ExternalState =
        batch === 'DENIED' || (t && PAYOUT_FAILED.has(t))
          ? 'failed'
          : batch === 'CANCELED'
            ? 'cancelled'
            : t === 'SUCCESS'
              ? 'paid'
              : 'pending';
      const a = item?.payout_item?.amount;
      return {
        ref,
        state,
        ...(a ? { amount: fromPaypalValue(a.value, a.currency), currency: a.currency } : {}),
        ...(state === 'failed' ? { failureCode: item?.errors?.name ?? t ?? batch } : {}),
      };
    }
    return fromOrder(await getOrder(id));
  }

  /** The authorisation a hold ref points at (an order ref: its latest authorisation). */
  async function authorizationOf(ref: string): Promise<Authorization> {
    const { kind, id } = parseRef(ref);
    if (kind === 'auth') return getAuthorization(id);
    if (kind === 'order') {
      const auths = (await getOrder(id)).purchase_units?.[0]?.payments?.authorizations ?? [];
      const a = auths[auths.length - 1];
      if (a) return a;
    }
    throw new ProviderError('AUTHORIZATION_NOT_FOUND', `no PayPal authorization behind ${ref}`, 404);
  }

  /** The capture a paid ref points at (an authorisation or order ref: its capture). */
  async function captureOf(ref: string): Promise<Capture> {
    const { kind, id } = parseRef(ref);
    if (kind === 'capture') return getCapture(id);
    let order: Order | undefined;
    let authId: string | undefined;
    if (kind === 'auth') {
      const a = await getAuthorization(id);
      authId = a.id;
      const orderId = a.supplementary_data?.related_ids?.order_id;
      if (orderId) order = await getOrder(orderId);
    } else if (kind === 'order') {
      order = await getOrder(id);
    }
    const captures = authId ? capturesOf(order, authId) : (order?.purchase_units?.[0]?.payments?.captures ?? []);
    const c = captures.find((x) => captureState(x) === 'paid');
    if (!c) throw new ProviderError('CAPTURE_NOT_FOUND', `no completed PayPal capture behind ${ref}`, 404);
    return c;
  }

  async function voidAuthorization(id: string, requestId: string) {
    try {
      await api('POST', `/v2/payments/authorizations/${encodeURIComponent(id)}/void`, { requestId });
    } catch (err) {
      // Released before (a retry under another key): nothing is held any more.
      if (err instanceof ProviderError && err.code === 'PREVIOUSLY_VOIDED') return;
      throw err;
    }
  }

  return {
    base,
    http,
    parse,
    accessToken,
    fetchToken,
    api,
    getOrder,
    getCapture,
    getAuthorization,
    money,
    fromCapture,
    fromOrder,
    fromAuthorization,
    capturesOf,
    status,
    authorizationOf,
    captureOf,
    voidAuthorization,
  };
}
