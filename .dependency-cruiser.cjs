// Import cycles between files, counted the strict way: type-only imports too (they still tie
// two files' meanings together). Folder cycles cannot happen: ESLint's no-restricted-paths
// zones (scripts/layers.js) give every server folder its own rank and allow imports downward only.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'Two modules that import each other cannot be understood or changed one at a time.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
