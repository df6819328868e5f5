// The 0xA8 family's HTTP registration: a cabinet asks for its MQTT credentials at boot, signing the request.
//   POST /api/rentbox/client/connect?uuid=&deviceId=&simUUID=&simMobile=&sign=   (body: hardware=…&software=…)
//   sign = MD5("deviceId={deviceId}|simMobile={simMobile}|simUUID={simUUID}|uuid={uuid}|key={key}"), lower-case hex,
//   key = VENDOR_A8_SIGN_KEY (set in the cabinets; without a key anyone knowing an IMEI could take its credentials).
//   200 {code: 200, type: 0, data: "clientId,productKey,host,port,username,password,timestamp", msg: "OK", time}
//   401 bad signature, 404 a cabinet not registered (cabinets row {prefix}{uuid}), 400 a malformed request.
// Each call issues a new password (the family asks at every boot; the previous one stops working).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../../../lib/clock.ts';
import { issueCabinetCredentials } from '../../credentials.ts';
import type { CabinetCredentialsRepository } from '../../credentials-repository.ts';

export interface A8RegistrationOptions {
  idPrefix: string;
  signKey: string;
  /** The broker address the cabinets are told (host and port reachable from them). */
  broker: { host: string; port: number };
  credentials: CabinetCredentialsRepository;
  /** Whether the cabinet is registered. */
  exists(cabinetId: string): Promise<boolean>;
  clock: Clock;
}

export function a8Signature(q: { uuid: string; deviceId: string; simUUID?: string; simMobile?: string }, key: string) {
  return createHash('md5')
    .update(
      `deviceId=${q.deviceId}|simMobile=${q.simMobile ?? ''}|simUUID=${q.simUUID ?? ''}|uuid=${q.uuid}|key=${key}`,
    )
    .digest('hex');
}

const field = { type: 'string', maxLength: 64 } as const;

export default async function a8RegistrationRoutes(app: FastifyInstance, o: A8RegistrationOptions) {
  // The cabinets send text/plain (hardware=…&software=…): read it as a string, nothing in it is needed.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) =>
    done(null, body),
  );
  app.post(
    '/api/rentbox/client/connect',
    {
      schema: {
        querystring: {
          type: 'object',
          required: ['uuid', 'deviceId', 'sign'],
          properties: {
            uuid: { type: 'string', pattern: '^[A-Za-z0-9]{1,40}$' },
            deviceId: field,
            simUUID: field,
            simMobile: field,
            sign: { type: 'string', pattern: '^[0-9a-fA-F]{32}$' },
          },
        },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      const time = o.clock.now().getTime();
      if (req.validationError) return reply.code(400).send({ code: 400, type: 1, msg: 'Bad request', time });
      const q = req.query as { uuid: string; deviceId: string; simUUID?: string; simMobile?: string; sign: string };
      const want = Buffer.from(a8Signature(q, o.signKey), 'hex');
      if (!timingSafeEqual(want, Buffer.from(q.sign.toLowerCase(), 'hex')))
        return reply.code(401).send({ code: 401, type: 1, msg: 'Invalid signature', time });
      const cabinetId = `${o.idPrefix}${q.uuid}`;
      if (!(await o.exists(cabinetId)))
        return reply.code(404).send({ code: 404, type: 1, msg: 'Device not registered', time });
      const password = await issueCabinetCredentials(o.credentials, cabinetId, o.clock.now());
      const data = [q.uuid, 'powerbank', o.broker.host, o.broker.port, cabinetId, password, time].join(',');
      return reply.send({ code: 200, type: 0, data, msg: 'OK', time });
    },
  );
}
