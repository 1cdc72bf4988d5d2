import type { Access, OpName, OpOutput, OpParsedInput } from '../../shared/contract';

export type Transport = 'ipc' | 'http' | 'mcp' | 'cli' | 'internal';

/** Who is calling: the operator at the app, or an MCP client holding a token of some class. */
export type Caller =
  { kind: 'operator' } | { kind: 'token'; tokenId: string; name: string; access: Exclude<Access, 'operator'> };

export interface CallContext {
  transport: Transport;
  caller: Caller;
  /** Aborted when the caller goes away (HTTP request closed, MCP cancel). */
  signal?: AbortSignal;
}

export const operatorContext = (transport: Transport): CallContext => ({ transport, caller: { kind: 'operator' } });

export const accessOf = (p: Caller): Access => (p.kind === 'operator' ? 'operator' : p.access);
export const actorOf = (p: Caller): string => (p.kind === 'operator' ? 'operator' : `token:${p.tokenId}`);

export type Handler<K extends OpName> = (
  input: OpParsedInput<K>,
  ctx: CallContext,
) => Promise<OpOutput<K>> | OpOutput<K>;
export type Handlers = { [K in OpName]: Handler<K> };
