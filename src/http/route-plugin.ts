// Route plugins: the functions a feature's routes are registered with (`app.register(...)`).
import type { FastifyInstance } from 'fastify';

/**
 * A Fastify plugin made from a function that adds routes, which it does synchronously. Fastify
 * takes a plugin either with a `done` callback or as a function returning a promise; this is the
 * promise form, so an error thrown while registering rejects `app.register` as it would from an
 * async function, instead of escaping the plugin loader. The plugin keeps the function's name,
 * which Fastify uses when it reports the plugin.
 */
export function routePlugin<Deps>(
  register: (app: FastifyInstance, deps: Deps) => void,
): (app: FastifyInstance, deps: Deps) => Promise<void> {
  const plugin = (app: FastifyInstance, deps: Deps) =>
    new Promise<void>((resolve) => {
      register(app, deps);
      resolve();
    });
  return Object.defineProperty(plugin, 'name', { value: register.name });
}
