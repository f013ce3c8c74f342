// How the MCP tools reach Sightline: through the /v1 API, with the caller's own credentials, so
// every tool call passes the same authentication, permission checks and tenant scoping as any
// API client. The /mcp route answers these calls in-process; nothing here knows how.

export interface ApiCall {
  method: 'GET' | 'POST';
  /** The path under /v1, e.g. `/cases/42`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

export interface ApiAnswer {
  status: number;
  /** The body as the API sent it: record text keeps every digit it was stored with. */
  text: string;
}

export type ApiCaller = (call: ApiCall) => Promise<ApiAnswer>;

/** A tool call Sightline refused or could not answer; its message is what the model reads. */
export class ToolFailure extends Error {}

/** The answer's body as sent, or a ToolFailure naming the API's problem. */
export async function callText(api: ApiCaller, call: ApiCall): Promise<string> {
  const answer = await api(call);
  if (answer.status >= 200 && answer.status < 300) return answer.text;
  throw new ToolFailure(refusal(answer));
}

/** The answer's body parsed, for tools that pick from it. */
export async function callJson<T>(api: ApiCaller, call: ApiCall): Promise<T> {
  return JSON.parse(await callText(api, call)) as T;
}

function refusal(answer: ApiAnswer): string {
  const problem = problemOf(answer.text);
  const code = problem.code ? ` ${problem.code}` : '';
  return `Sightline refused the call (HTTP ${answer.status}${code}): ${problem.detail ?? problem.title ?? 'no detail'}`;
}

/** The problem+json fields of an error body; the API answers every error that way. */
function problemOf(text: string): { code?: string; detail?: string; title?: string } {
  if (!text.startsWith('{')) return {};
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === 'object' && parsed !== null ? parsed : {};
}
