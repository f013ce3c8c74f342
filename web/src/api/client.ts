// The one way the UI talks to the server: the same `/v1` API integrations use, with the session
// cookie. Writes carry the session's CSRF token; operators name the tenant they work in; every
// failure arrives as an ApiError holding the RFC 9457 problem (status, stable code, detail).
import type { Problem } from './types';
import { parseJson } from '../lib/exact-json';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly problem: Problem | undefined,
  ) {
    super(detail);
  }
}

interface ClientState {
  csrfToken: string | null;
  /** Operators only: the tenant code name sent as `Sightline-Tenant`. */
  tenant: string | null;
  /** Called when the session ended (401), so the app can show the sign-in page. */
  onSignedOut: () => void;
}

const state: ClientState = {
  csrfToken: null,
  tenant: null,
  onSignedOut: () => {
    // Until the session provider registers its handler there is no sign-in page to show.
  },
};

export function configureClient(changes: Partial<ClientState>): void {
  Object.assign(state, changes);
}

export function currentTenantHeader(): string | null {
  return state.tenant;
}

export interface RequestOptions {
  body?: unknown;
  /** Query parameters; undefined and empty values are left out. */
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
  /** Leave out the Sightline-Tenant header (calls outside any tenant, e.g. the operator's tenant list). */
  noTenant?: boolean;
}

export function withQuery(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-requested-with': 'sightline-web' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && state.csrfToken) headers['x-csrf-token'] = state.csrfToken;
  if (state.tenant && !options.noTenant) headers['sightline-tenant'] = state.tenant;
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(
      0,
      'network_error',
      'the server could not be reached; check the connection and try again',
      undefined,
    );
  }
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  const body: unknown = type.includes('json') && text !== '' ? parseJson(text) : text;
  if (!response.ok) {
    const problem = typeof body === 'object' && body !== null ? (body as Problem) : undefined;
    const error = new ApiError(
      response.status,
      problem?.code ?? 'http_error',
      problem?.detail ?? `${response.status} ${response.statusText}`,
      problem,
    );
    if (response.status === 401 && path !== '/v1/auth/login') state.onSignedOut();
    throw error;
  }
  return body as T;
}

/** The error a failed response stands for, from its problem details when it sent JSON (downloads). */
export async function responseError(response: Response): Promise<ApiError> {
  const problem = (response.headers.get('content-type') ?? '').includes('json')
    ? ((await response.json()) as Problem)
    : undefined;
  return new ApiError(
    response.status,
    problem?.code ?? 'http_error',
    problem?.detail ?? `${response.status} ${response.statusText}`,
    problem,
  );
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'body'>) => request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body }),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PATCH', path, { ...options, body }),
  put: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PUT', path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
};

/** A person-readable sentence for any error a query or mutation threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof Error) return error.message;
  return String(error);
}
