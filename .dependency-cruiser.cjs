// Import cycles are refused everywhere (issue 30): a cycle is a layer that leaks, and type-only
// imports count too, as they tie the files' meanings together the same way. `npm run check:cycles`
// runs it; `npm test` runs that first.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycle: move the shared part down a layer (a types file, a lib) or pass it in.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["node_modules", "^public/", "^\\.wrangler/", "^portal/dist/"] },
  },
};
