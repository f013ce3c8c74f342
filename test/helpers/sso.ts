// A person signing in with single sign-on, driven over HTTP: a small cookie jar per origin,
// redirects followed by hand, the provider's login form filled in. Browsers test the same flow
// in sso.browser.test.ts; this one lets a test stop, inspect or alter any step. Suites mark the
// email domains they sign people in with as verified.
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';
import { saveVerifiedDomain } from '../../src/identity/sso/sso-store.js';

export class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>();

  store(url: URL, response: Response): void {
    const jar = this.jars.get(url.origin) ?? new Map<string, string>();
    this.jars.set(url.origin, jar);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }

  header(url: URL): string {
    return [...(this.jars.get(url.origin) ?? new Map<string, string>())].map(([n, v]) => `${n}=${v}`).join('; ');
  }

  get(url: URL, name: string): string | undefined {
    return this.jars.get(url.origin)?.get(name);
  }
}

/** Node's fetch may try ::1 for localhost first; the test servers listen on 127.0.0.1. */
export function loopback(url: string | URL): URL {
  const parsed = new URL(url);
  if (parsed.hostname === 'localhost') parsed.hostname = '127.0.0.1';
  return parsed;
}

export async function send(jar: CookieJar, url: URL, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string> | undefined), cookie: jar.header(url) },
  });
  jar.store(url, response);
  return response;
}

/**
 * From Sightline's start URL through the provider's login form, up to (not into) the provider's
 * redirect back to Sightline's callback: returns that callback URL, so a test may alter it.
 */
export async function throughProvider(jar: CookieJar, start: string, login: string, issuer: string): Promise<URL> {
  const provider = new URL(issuer).origin;
  let url = loopback(start);
  for (let step = 0; step < 12; step++) {
    const response = await send(jar, url);
    if (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.get('location') ?? '', url);
      if (url.origin === provider && next.origin !== provider) return next;
      url = loopback(next);
      continue;
    }
    const html = await response.text();
    assert.equal(response.status, 200, `step ${step} at ${url.href}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    assert.ok(action, `no form at ${url.href}: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1] ?? 'login';
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'any password' } : {}) });
    const posted = await send(jar, new URL(action, url), {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.ok(posted.status >= 300 && posted.status < 400, `the ${prompt} form answered ${posted.status}`);
    url = loopback(new URL(posted.headers.get('location') ?? '', url));
  }
  assert.fail(`the provider did not send ${login} back to Sightline`);
}

export interface SsoOutcome {
  /** Where Sightline sent the browser at the end. */
  location: string;
  /** The session cookie, when one was set. */
  session: string | undefined;
}

/** The whole sign-in: start, provider, callback. */
export async function signInWithSso(
  baseUrl: string,
  startPath: string,
  login: string,
  issuer: string,
  jar = new CookieJar(),
): Promise<SsoOutcome> {
  const callback = await throughProvider(jar, `${baseUrl}${startPath}`, login, issuer);
  return finishAt(jar, callback);
}

export async function finishAt(jar: CookieJar, callback: URL): Promise<SsoOutcome> {
  const url = loopback(callback);
  const response = await send(jar, url);
  assert.equal(response.status, 302, await response.text());
  return { location: response.headers.get('location') ?? '', session: jar.get(url, 'sightline_session') };
}

/** Marks an email domain verified for a tenant, as a platform operator's approval does. */
export async function approveEmailDomain(server: TestServer, tenant: { id: number }, domain: string): Promise<void> {
  await saveVerifiedDomain(server.sightline.database.db, {
    tenant_id: tenant.id,
    domain,
    verified_by: 'operator',
    verified_at: Date.now(),
    approved_by: 'test',
  });
}
