import { Type, type TSchema } from 'typebox';

/** The wire envelope of docs/api.md. */
export const ok = <T>(data: T, code: 0 | 1 | 9 = 0, msg = 'success') => ({ code, msg, data });

/** The error envelope: `msg` is already in the request's language. */
export const failure = (code: number, msg: string) => ({ code, msg, data: null });

export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ code: Type.Integer(), msg: Type.String(), data });
