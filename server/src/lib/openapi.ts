// What the served OpenAPI document says of every operation, derived here from the route itself so that a route
// declares only its success shape (and, when it knows better than the default, its business errors):
// - security per operation: a route behind requireUser needs the `token` header; one that reads an optional
//   `token` header takes it or not; any other is public (`security: []`);
// - every error status it answers, each with the one error envelope (Failure: `code` = the HTTP status): 400
//   (validation, malformed input), 401 (when it reads a session), the business errors (`errors` in the route's
//   schema; default 404, 409, 422), 429 (rate limits), 500 (an internal failure; never for input the schema allows),
//   503 (an outside service it relies on is not answering);
// - request content types as parsed: JSON, and form-encoded where the body is flat (plugins/validation.ts);
// - a parameter or field with a default is optional (the server fills it in); a JSON body's number or boolean field
//   may come as its text (lib/scalar-text.ts);
// - an operationId for every operation, the links between the rental's and the Wi-Fi package's steps, `servers`.
// Routes for payment providers and the sandbox peers (their own wire formats, no envelope) are not in this document.
import type { RouteOptions } from 'fastify';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { Failure } from '#contract/envelope.ts';
import { API_PREFIX } from './route.ts';
import { acceptScalarText } from './scalar-text.ts';

declare module 'fastify' {
  interface FastifySchema {
    /** The business errors this route answers (AppError statuses); default DEFAULT_BUSINESS_ERRORS. */
    errors?: readonly BusinessStatus[];
    /** What a business error status means for this route, where it says more than the common reason (REASONS). */
    errorReasons?: Partial<Record<BusinessStatus, string>>;
    /** An ops save other than PATCH and PUT that needs If-Match (lib/ops-concurrency.ts): it answers 428 without. */
    ifMatch?: true;
  }
}

export type BusinessStatus = 401 | 403 | 404 | 409 | 422;
export const DEFAULT_BUSINESS_ERRORS: readonly BusinessStatus[] = [404, 409, 422];

const REASONS: Record<number, string> = {
  400: 'The request is invalid (a missing, malformed or extra field; `msg` names the field)',
  401: 'No session: the token is missing, expired or revoked',
  403: 'Not allowed',
  404: 'No such thing (order, cabinet, package, …)',
  409: 'Conflict (a concurrent duplicate, a state that does not allow it now)',
  422: 'A business rule refused it; `msg` says why',
  429: 'Too many requests from this client: try again later',
  503: 'A service this operation relies on (a payment or sign-in provider) is not answering: try again later',
  500: 'Internal error (never for input the schema allows); `msg` carries no internals',
};

/** Paths answered in the envelope of docs/api.md (and so in this document). */
const ENVELOPE_PATHS = [`${API_PREFIX}/`, '/demo-api/', '/crmLeads/'];
const isEnvelope = (url: string) => ENVELOPE_PATHS.some((p) => url.startsWith(p));
const documented = (url: string) => isEnvelope(url) || url === '/healthz';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A property with a default is optional on the wire: the server fills it in (useDefaults). */
function defaultsOptional(schema: unknown): unknown {
  if (!isObject(schema) || !isObject(schema.properties) || !Array.isArray(schema.required)) return schema;
  const props = schema.properties;
  const required = (schema.required as string[]).filter((k) => !(isObject(props[k]) && 'default' in props[k]));
  return { ...schema, required };
}

const SCALAR = new Set(['string', 'number', 'integer', 'boolean']);
/** A scalar schema (or a union of scalars): what a form field can carry. */
function scalar(s: unknown): boolean {
  if (!isObject(s)) return false;
  if (typeof s.type === 'string') return SCALAR.has(s.type);
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  return Array.isArray(union) && union.every(scalar);
}
/** A body whose every field is a scalar can come form-encoded as well as JSON. */
export const isFlatBody = (body: unknown) =>
  isObject(body) && isObject(body.properties) && Object.values(body.properties).every(scalar);

const hasToken = (headers: unknown) =>
  isObject(headers) && isObject(headers.properties) && 'token' in headers.properties;

const errorResponse = (status: number, reason?: string) => ({
  description: reason ?? REASONS[status] ?? 'Error',
  content: { 'application/json': { schema: Failure(status) } },
});

/** The swagger `transform`: one route's operation as documented. */
export function operationOf(isSession: (route: RouteOptions) => boolean): SwaggerTransform {
  return ({ schema, url, route }) => {
    if (!documented(url)) return { schema: { ...schema, hide: true }, url };
    const s: Json = { ...schema };
    const session = isSession(route);
    const security =
      (schema.security as Json[] | undefined) ??
      (session ? [{ token: [] }] : hasToken(schema.headers) ? [{}, { token: [] }] : []);
    s.security = security;
    const statuses = new Set<number>([400]);
    if (security.some((r) => 'token' in r)) statuses.add(401);
    for (const st of schema.errors ?? DEFAULT_BUSINESS_ERRORS) statuses.add(st);
    statuses.add(429).add(500).add(503);
    const response: Json = { ...(schema.response as Json | undefined) };
    // A stream of server-sent events (@fastify/sse) has no JSON answer to declare in its route.
    if ((route as { sse?: unknown }).sse && !response[200]) {
      response[200] = {
        description: 'Server-sent events',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      };
    }
    const reasons = (schema.errorReasons ?? {}) as Partial<Record<number, string>>;
    for (const st of [...statuses].sort()) response[st] = errorResponse(st, reasons[st]);
    s.response = response;
    if (schema.body && !s.consumes)
      s.consumes = isFlatBody(schema.body)
        ? ['application/json', 'application/x-www-form-urlencoded']
        : ['application/json'];
    if (schema.querystring) s.querystring = defaultsOptional(schema.querystring);
    if (schema.body) s.body = acceptScalarText(defaultsOptional(schema.body));
    delete s.errors;
    delete s.errorReasons;
    return { schema: s, url };
  };
}

/** `post /cdb-app-api/v1/app/cdb/mine/order/check/{tradeNo}/{payMode}` → `postCdbMineOrderCheck`. */
export function operationId(method: string, path: string) {
  const words = path
    .replace(API_PREFIX, '')
    .split('/')
    .filter((w) => w && !w.startsWith('{'))
    .flatMap((w) => w.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

interface Link {
  operationId: string;
  parameters?: Json;
  requestBody?: Json;
  description: string;
}
const body = (path: string) => `$response.body#/data/${path}`;
/**
 * The steps a client walks, from responses that return an id to the operations that take it: scan → rent → order
 * check → order detail; package order → pickup → pickup poll → device → traffic.
 */
const LINKS: Record<string, Record<string, Link>> = {
  postCdbCabinetCheckisok: {
    rentWithDeposit: {
      operationId: 'postCdbCabinetUseDepositToRent',
      requestBody: { qrcode: body('qrcode') },
      description: 'Pay the deposit and rent at the scanned cabinet',
    },
    rentWithBalance: {
      operationId: 'getCdbCabinetUseBalanceToRent',
      parameters: { 'query.qrcode': body('qrcode') },
      description: 'Rent with the wallet balance',
    },
    paymentMethods: {
      operationId: 'getCdbPaymentMethodList',
      parameters: { 'query.qrcode': body('qrcode') },
      description: "The cabinet's payment methods",
    },
  },
  postCdbCabinetUseDepositToRent: {
    check: {
      operationId: 'postCdbMineOrderCheck',
      parameters: { 'path.tradeNo': body('outTradeNo') },
      description: 'Poll the rental until the power bank is out',
    },
  },
  postCdbCabinetSavedCardToRent: {
    check: {
      operationId: 'postCdbMineOrderCheck',
      parameters: { 'path.tradeNo': body('outTradeNo') },
      description: 'Poll the rental until the power bank is out',
    },
  },
  getCdbCabinetUseBalanceToRent: {
    check: {
      operationId: 'postCdbMineOrderCheck',
      parameters: { 'path.tradeNo': body('outTradNo') },
      description: 'Poll the rental until the power bank is out',
    },
  },
  postCdbMineOrderCheck: {
    detail: {
      operationId: 'getCdbMineOrderDetail',
      parameters: { 'query.orderId': body('orderId') },
      description: 'The rental order',
    },
  },
  getCdbMineOrderDetail: {
    receipt: {
      operationId: 'getCdbInvoiceCheck',
      parameters: { 'query.orderId': body('pOrderid') },
      description: "The order's receipt",
    },
    money: {
      operationId: 'getCdbOrderMoney',
      parameters: { 'query.orderId': body('pOrderid') },
      description: "The order's money timeline",
    },
  },
  postChargenowMifiRent: {
    pickup: {
      operationId: 'postChargenowMifiPickup',
      requestBody: { pickOrderId: body('orderId') },
      description: 'Pick up a box for the package at a cabinet',
    },
    pickupPoll: {
      operationId: 'getChargenowMifiCheckPickUp',
      parameters: { 'query.mifiOrderId': body('orderId') },
      description: 'Poll the QR pickup',
    },
    package: {
      operationId: 'getChargenowMifiPackage',
      parameters: { 'query.mifiOrderId': body('orderId') },
      description: 'The package order',
    },
  },
  postChargenowMifiPickup: {
    device: {
      operationId: 'getChargenowMifiOrderDetail',
      parameters: { 'query.orderId': body('orderId') },
      description: 'The box of the package',
    },
  },
  getChargenowMifiOrderDetail: {
    traffic: {
      operationId: 'postChargenowMifiTrafficUsage',
      requestBody: { sn: body('sn') },
      description: "The box's traffic between two times",
    },
    usage: {
      operationId: 'postChargenowMifiFlowUsageList',
      requestBody: { sn: body('sn') },
      description: "The box's traffic per package period",
    },
  },
};

/** OpenAPI 3.0 has the boolean form of exclusiveMinimum/Maximum (JSON Schema's number form is 3.1). */
function toOpenApi30(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(toOpenApi30);
  if (!isObject(node)) return;
  for (const [k, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof node[k] === 'number') {
      node[bound] = node[k];
      node[k] = true;
    }
  }
  for (const v of Object.values(node)) toOpenApi30(v);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The swagger `transformObject`: what the whole document adds to its operations. */
export const finishDocument: SwaggerTransformObject = (document) => {
  const doc = ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as Json & {
    paths: Record<string, Record<string, Json>>;
  };
  delete doc.security; // each operation says its own
  const ids = new Map<string, Json & { responses: Record<string, Json> }>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      op.operationId ??= operationId(method, path);
      ids.set(op.operationId as string, op as Json & { responses: Record<string, Json> });
    }
  }
  for (const [from, links] of Object.entries(LINKS)) {
    const ok = ids.get(from)?.responses['200'];
    if (!ok) continue;
    const present = Object.entries(links).filter(([, l]) => ids.has(l.operationId));
    if (present.length) ok.links = Object.fromEntries(present);
  }
  toOpenApi30(doc.paths);
  toOpenApi30(doc.components);
  return doc as ReturnType<SwaggerTransformObject>;
};

/** @fastify/swagger's options for the rider API's document: its header, and the two transforms above. */
export function riderDocument(isSession: (route: RouteOptions) => boolean): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      info: {
        title: 'Powerly rental API',
        version: '0.1.0',
        description: 'See docs/api.md for the envelope and rules.',
        license: { name: 'Proprietary', url: 'https://powerly.invalid/terms' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'token', description: 'The session token of a sign-in call' },
        },
      },
    },
    transform: operationOf(isSession),
    transformObject: finishDocument,
  };
}
