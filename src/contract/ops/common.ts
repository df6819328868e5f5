// The ops API's shared shapes (docs/api.md "Ops API"): errors, pages, the reason every write carries.
import { Type, type Static, type TSchema } from 'typebox';

/** Every error of the ops API: the HTTP status is the status of the response; `message` is in the operator's language. */
export const OpsError = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String({
    description:
      'a stable machine name: bad_request, unauthorized, forbidden, not_found, conflict, precondition_required, csrf, …',
  }),
  message: Type.String(),
});
export type OpsError = Static<typeof OpsError>;

/** A page of a list: `next` is the cursor of the following page (absent on the last). */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    next: Type.Optional(Type.String()),
  });
export interface PageOf<T> {
  items: T[];
  next?: string;
}

export const PageQuery = {
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
};

/** Why a write is made: stored with it in the audit log. */
export const Reason = Type.String({ minLength: 3, maxLength: 500 });

export const Ok = Type.Object({ ok: Type.Literal(true) });
