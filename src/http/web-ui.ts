// Serves the web UI (the React app Vite builds into dist/web) at `/`, from the same process as
// the API it calls. Hashed assets are cached for a year; every other page path answers the app's
// index.html, so a deep link or a reload of /cases/42 opens the app on that page.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { AppError } from '../core/errors.js';
import { sendProblem } from './error-handler.js';

/** Where `vite build` writes the app: the same place from src/http (tests) and dist/http (npm start). */
export const webRoot = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** Paths that belong to the API, the collector or operations: never answered with the app. */
const serverPaths = /^\/(v1|docs|log_sink|healthz|readyz|metrics)(\/|$|\?)/;

// The app loads nothing from elsewhere and runs no inline script or style: React sets the few
// computed styles (chart sizes) through the CSSOM, which a strict style-src allows.
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', contentSecurityPolicy);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'same-origin');
  reply.header('X-Frame-Options', 'DENY');
}

/** Both are handed to Fastify on their own, so they are functions that need no `this`. */
export interface WebUi {
  /** Registers the assets and the app's entry page. */
  plugin: (app: FastifyInstance) => Promise<void>;
  /** For the not-found handler: a GET for a page (not a file, not the API) gets the app. */
  pageFallback: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

export function webUi(root = webRoot): WebUi {
  const indexPath = path.join(root, 'index.html');
  const index = fs.existsSync(indexPath) ? fs.readFileSync(indexPath) : undefined;

  const sendIndex = (_request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // A server started from source without `npm run build` has no app: say how to get one.
    if (!index)
      return sendProblem(
        reply,
        new AppError('web_ui_not_built', `the web UI is not built: run "npm run build" (looked in ${root})`),
      );
    securityHeaders(reply);
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(index);
  };

  return {
    async plugin(app) {
      if (!index) app.log.warn({ root }, 'the web UI is not built (run npm run build); its pages answer 503');
      else {
        await app.register(fastifyStatic, {
          root,
          prefix: '/',
          wildcard: false,
          index: false,
          decorateReply: false,
          setHeaders: (reply, file) => {
            // Vite names assets by content hash: a new build is new names, so they never go stale.
            const immutable = file.includes(`${path.sep}assets${path.sep}`);
            reply.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
          },
        });
      }
      app.get('/', sendIndex);
    },
    pageFallback(request, reply) {
      const pathname = request.url.split('?')[0] ?? '/';
      const isPage =
        (request.method === 'GET' || request.method === 'HEAD') &&
        !serverPaths.test(pathname) &&
        !path.extname(pathname) &&
        (request.headers.accept ?? '').includes('text/html');
      return isPage ? sendIndex(request, reply) : undefined;
    },
  };
}
