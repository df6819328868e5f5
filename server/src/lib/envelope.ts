// The envelope's schema is the contract's (src/contract/envelope.ts); these build the answers.

/** The wire envelope of docs/api.md. */
export const ok = <T>(data: T, code: 0 | 1 | 9 = 0, msg = 'success') => ({ code, msg, data });

/** The error envelope: `msg` is already in the request's language. */
export const failure = (code: number, msg: string) => ({ code, msg, data: null });
