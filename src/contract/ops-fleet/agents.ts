// The fleet's agents (the partners whose origins frame the embed): what the ops API takes and answers.
import { Type, type Static } from 'typebox';
import { Country, Currency, Id, Text, Version } from './fields.ts';

export const AgentFields = {
  name: Text(120),
  country: Type.Optional(Country),
  currencies: Type.Array(Currency, { maxItems: 20, description: 'currencies the agent sells in' }),
  origins: Type.Array(Type.String({ maxLength: 200 }), {
    maxItems: 50,
    description: 'exact origins allowed to frame the embed (https://host[:port])',
  }),
  depositByPayment: Type.Optional(
    Type.Boolean({
      description:
        "every deposit at the agent's cabinets is paid (card or top-up) unless the wallet covers the deposit and the overtime fee; default false",
    }),
  ),
};
export const AgentCreate = Type.Object({ id: Id, ...AgentFields }, { additionalProperties: false });
export type AgentCreate = Static<typeof AgentCreate>;
export const AgentUpdate = Type.Object(
  {
    version: Version,
    name: Type.Optional(AgentFields.name),
    country: Type.Optional(Country),
    currencies: Type.Optional(AgentFields.currencies),
    origins: Type.Optional(AgentFields.origins),
    depositByPayment: AgentFields.depositByPayment,
  },
  { additionalProperties: false },
);
export type AgentUpdate = Static<typeof AgentUpdate>;
export const Agent = Type.Object({
  id: Type.String(),
  ...AgentFields,
  country: Type.Union([Country, Type.Null()]),
  depositByPayment: Type.Boolean(),
  version: Type.Integer(),
});
export type Agent = Static<typeof Agent>;
