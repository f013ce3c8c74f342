// Where clients reach this server: --public-url when set, else what the server listens on —
// https when it has a certificate or, with --insecure-http, sits behind a TLS proxy (on 443),
// http on its own port otherwise. Collector addresses printed anywhere (the API, the CLI, the
// start-up log) use this scheme and port, so what is printed is what works.
import type { Config } from './settings.js';

export type PublicUrlSettings = Pick<Config, 'publicUrl' | 'tlsCert' | 'insecureHttp' | 'baseDomain' | 'port'>;

export function resolvePublicUrl(config: PublicUrlSettings): string {
  if (config.publicUrl !== '') return config.publicUrl;
  if (config.insecureHttp) return `https://${config.baseDomain}`;
  // The URL parser drops a port that is the scheme's default.
  return new URL(`${config.tlsCert ? 'https' : 'http'}://${config.baseDomain}:${config.port}`).origin;
}
