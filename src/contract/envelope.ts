// The wire envelope of every app API answer (docs/api.md): { code, msg, data }. Code 0 success (POST also
// 9), 1 'Processing'; an error answer carries the envelope with data null and a non-2xx status.
import { Type, type Static, type TSchema, type TUnknown } from 'typebox';

/** The envelope around one endpoint's data schema (the server's response schemas). */
export const Envelope = <T extends TSchema>(data: T) => Type.Object({ code: Type.Integer(), msg: Type.String(), data });

/** The envelope as the client reads it, around the data type T. */
export type EnvelopeOf<T> = Omit<Static<ReturnType<typeof Envelope<TUnknown>>>, 'data'> & { data: T };

/**
 * The error envelope (docs/api.md): every error answer has this body, with `code` equal to the HTTP status, `msg` the
 * reason in the request's language and `data` null. Errors are never answered with HTTP 200.
 */
export const Failure = (status: number) =>
  Type.Object({ code: Type.Literal(status), msg: Type.String(), data: Type.Null() });

/** Code 1 `Processing` (HTTP 200, data null): the operation is still under way; the client polls again. */
export const Processing = Type.Object({ code: Type.Literal(1), msg: Type.String(), data: Type.Null() });
