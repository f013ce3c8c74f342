// The server's layers, lowest first. A module may import from its own layer and the layers
// below it, never from one above: data flows collector → record log → detection → observations
// → cases → summaries, shared infrastructure sits under every feature, and only the
// composition roots (app/, cli/) see everything. eslint.config.js turns this list into
// import-x/no-restricted-paths zones; docs/architecture.md explains each layer.
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
  ['demo'],
  ['app'],
  ['cli'],
];

/** One zone per (lower, higher) pair: files in the lower layer may not import the higher one. */
export function layerZones(layers) {
  const zones = [];
  layers.forEach((lower, i) => {
    for (const higher of layers.slice(i + 1)) {
      for (const target of lower) {
        for (const from of higher) {
          zones.push({
            target: `./src/${target}`,
            from: `./src/${from}`,
            message: `${target}/ sits below ${from}/ (scripts/layers.js): pass a callback from the composition root instead.`,
          });
        }
      }
    }
  });
  return zones;
}
