// A request whose path exists under other methods answers 405 with `Allow`, as RFC 9110 asks,
// rather than the 404 of a path that does not exist at all. Fastify's router only says "no
// route": a second router of the same kind (find-my-way, the one Fastify uses) learns every
// route as it is added and answers which methods a concrete path has.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

export interface MethodIndex {
  /** The methods the path has routes for, in a stable order; empty when the path has none. */
  allowed(request: FastifyRequest): string[];
}

/** Must run before the routes are registered: it listens for each one as it is added. */
export function indexRouteMethods(app: FastifyInstance, maxParamLength: number): MethodIndex {
  const router = FindMyWay({ maxParamLength });
  const methods = new Set<HTTPMethod>();
  const seen = new Set<string>();
  app.addHook('onRoute', (route) => {
    // A route bound to some hosts (the collector's Elasticsearch API) is not the path's on others.
    if (route.constraints && Object.keys(route.constraints).length > 0) return;
    const list = (Array.isArray(route.method) ? route.method : [route.method]).map(
      (method) => method.toUpperCase() as HTTPMethod,
    );
    for (const method of list) {
      const key = `${method} ${route.url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      methods.add(method);
      router.on(method, route.url, () => undefined);
    }
  });
  return {
    allowed(request) {
      const path = request.url.split('?')[0] ?? '/';
      return [...methods].filter((method) => router.find(method, path) !== null).sort();
    },
  };
}
