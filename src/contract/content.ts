// Information screens: help, contact leads (at the host root), the WeChat JS-SDK config.
import { Type, type Static } from 'typebox';

export const HelpQuery = Type.Object({ classId: Type.String({ minLength: 5, maxLength: 40 }) });
export type HelpQuery = Static<typeof HelpQuery>;
export const HelpItem = Type.Object({ pId: Type.Integer(), pTitle: Type.String(), pContent: Type.String() });
export type HelpItem = Static<typeof HelpItem>;

export const WeChatConfigBody = Type.Object({
  url: Type.String({ minLength: 8, maxLength: 2000, pattern: '^https?://' }),
});
export type WeChatConfigBody = Static<typeof WeChatConfigBody>;
export const WeChatConfig = Type.Object({
  appId: Type.String(),
  timestamp: Type.Integer(),
  noncestr: Type.String(),
  signature: Type.String(),
});
export type WeChatConfig = Static<typeof WeChatConfig>;

const Field = (max: number) => Type.Optional(Type.String({ maxLength: max }));
/** POST {host}/crmLeads/add/public (JSON). The server requires Name, Email, Mobile and nation (trimmed). */
export const LeadBody = Type.Object({
  Name: Field(200),
  Email: Field(320),
  Mobile: Field(50),
  nation: Field(100),
  Content: Field(5000),
  source: Field(100),
});
export type LeadBody = Static<typeof LeadBody>;
export const LeadResult = Type.Object({ id: Type.Integer() });
export type LeadResult = Static<typeof LeadResult>;
