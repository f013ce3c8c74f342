// Every MCP tool call leaves an `mcp.tool_called` event in the tenant's audit log: the tool, the
// names and JSON types of its arguments (never their values, which may quote record contents),
// and whether it answered or failed. Refused calls (arguments past a bound) are recorded too.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface ToolCallAudit {
  tool: string;
  /** Argument name → JSON type (`string`, `number`, `array`…). */
  argumentShape: Record<string, string>;
  ok: boolean;
}

/** Arguments a client may send are unbounded; the audit keeps a bounded account of them. */
const MAX_AUDITED_ARGUMENTS = 20;
const MAX_AUDITED_NAME = 64;

/**
 * Records each tools/call request of `body` once its answer is about to be sent, before the
 * client can see it: a call whose audit could not be written is not answered.
 */
export function auditToolCalls(
  transport: Transport,
  body: unknown,
  record: (call: ToolCallAudit) => Promise<void>,
): void {
  const calls = new Map<string | number, Omit<ToolCallAudit, 'ok'>>();
  for (const message of [body].flat()) {
    const call = toolCallOf(message);
    if (call) calls.set(call.id, { tool: call.tool, argumentShape: call.shape });
  }
  if (calls.size === 0) return;
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const call = 'id' in message && message.id !== undefined ? calls.get(message.id) : undefined;
    if (call) await record({ ...call, ok: answered(message) });
    return send(message, options);
  };
}

function toolCallOf(message: unknown) {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: unknown };
  const tool = typeof name === 'string' ? name.slice(0, MAX_AUDITED_NAME) : '(none)';
  return { id, tool, shape: shapeOf(args) };
}

function shapeOf(args: unknown): Record<string, string> {
  if (typeof args !== 'object' || args === null) return {};
  const entries = Object.entries(args).slice(0, MAX_AUDITED_ARGUMENTS);
  return Object.fromEntries(entries.map(([name, value]) => [name.slice(0, MAX_AUDITED_NAME), jsonType(value)]));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** A result that is not a tool error; a JSON-RPC error or `isError` counts as a failure. */
function answered(message: JSONRPCMessage): boolean {
  if (!('result' in message)) return false;
  return (message.result as { isError?: unknown }).isError !== true;
}
