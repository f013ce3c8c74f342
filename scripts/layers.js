// The server's layers, lowest first. A module may import from its own layer and the layers
// below it, never from one above: data flows collector → record log → detection → observations
// → cases → summaries, shared infrastructure sits under every feature, and only the
// composition roots (app/, cli/) see everything. A layer may sit inside another's folder
// (storage/sqlite inside storage): the database backends implement the ports the features
// declare, so they rank above every feature while the rest of storage/ stays below them.
// eslint.config.js turns this list into import-x/no-restricted-paths zones;
// docs/architecture.md explains each layer, and a test keeps the two in step.
export const LAYERS = [
  ['core'],
  ['config'],
  ['observability'],
  ['storage'],
  ['http'],
  ['identity'],
  ['webhooks'],
  ['telemetry'],
  ['record-log'],
  ['collector'],
  ['devices'],
  ['detection'],
  ['observations'],
  ['cases'],
  ['summaries'],
  ['retention'],
  // The export to object storage reads raw records, findings and the leases retention keeps.
  ['export'],
  ['demo'],
  // The database backends, and the one place that picks a deployment's (storage/ports).
  ['storage/sqlite', 'storage/postgres', 'storage/ports'],
  // The consumers of the record log (detection's thread, the stream partitions' apply): they use
  // every feature and the backend's ports, and the composition roots start them.
  ['pipeline'],
  // The MCP server: it speaks for the whole /v1 API, which it calls with the caller's token.
  ['mcp'],
  ['app'],
  ['cli'],
];

/**
 * The files of one layer, as zone targets: its folder, less the folders of layers nested in it
 * (storage/ without its backends' folders), which rank on their own.
 */
function layerTarget(name, all) {
  const nested = all.filter((other) => other.startsWith(`${name}/`)).map((other) => other.slice(name.length + 1));
  if (nested.length === 0) return `./src/${name}`;
  return [`./src/${name}/*.ts`, `./src/${name}/!(${nested.join('|')})/**`];
}

/** One zone per (lower, higher) pair: files in the lower layer may not import the higher one. */
export function layerZones(layers) {
  const all = layers.flat();
  const zones = [];
  layers.forEach((lower, i) => {
    for (const higher of layers.slice(i + 1)) {
      for (const target of lower) {
        for (const from of higher) {
          zones.push({
            target: layerTarget(target, all),
            from: `./src/${from}`,
            message: `${target}/ sits below ${from}/ (scripts/layers.js): pass a callback from the composition root instead.`,
          });
        }
      }
    }
  });
  return zones;
}
