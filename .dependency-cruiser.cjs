/**
 * The import rules between the two sides (`npm run lint:deps`, run by .ci/run
 * before the tests). server/ and pipeline/ share only pipeline/artifact/ (what
 * both must agree on about an artifact set and DATA_DIR) and pipeline/youtube/
 * (the client the batch and the live fetch both use) and pipeline/embeddings/
 * (the embedders the build and the server's queries both use); settings/ is shared by
 * both and imports neither. The artifact format is imported through the
 * face (index.ts) of each of its folders. Inside server/ and pipeline/ the
 * folders form layers with no loop between them (`no-folder-loop`). Dynamic
 * `import()` counts as an import.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "pipeline-not-server",
      comment: "The pipeline never imports the server: it runs without it (cron, CI), and the server's code must stay free to change.",
      severity: "error",
      from: { path: "^pipeline/" },
      to: { path: "^server/" },
    },
    {
      name: "server-only-shared-pipeline",
      comment:
        "The server imports from pipeline/ only pipeline/artifact/, pipeline/youtube/ and pipeline/embeddings/ (the embedders, for queries): the build, the crawl and the demo generator must not load with the server.",
      severity: "error",
      from: { path: "^server/" },
      to: { path: "^pipeline/", pathNot: "^pipeline/(artifact|youtube|embeddings)/" },
    },
    {
      name: "shared-stays-shared",
      comment:
        "pipeline/artifact/, pipeline/youtube/ and pipeline/embeddings/ import nothing else from pipeline/ (nor the server): the server loads them, so whatever they import would load with it.",
      severity: "error",
      from: { path: "^pipeline/(artifact|youtube|embeddings)/" },
      to: { path: "^(server|pipeline)/", pathNot: "^pipeline/(artifact|youtube|embeddings)/" },
    },
    {
      name: "artifact-through-face",
      comment:
        "The server and the pipeline import the artifact format through the face of each of its folders (pipeline/artifact/<concept>/index.ts), never a file behind it: what a face exports is what both sides may rely on, and the files behind it can change.",
      severity: "error",
      from: { path: "^(server|pipeline)/", pathNot: "^pipeline/artifact/" },
      to: { path: "^pipeline/artifact/", pathNot: "^pipeline/artifact/[^/]+/index\\.ts$" },
    },
    {
      name: "artifact-folders-through-faces",
      comment: "A folder of pipeline/artifact/ imports another one through its face too (its own files directly).",
      severity: "error",
      from: { path: "^pipeline/artifact/([^/]+)/" },
      to: { path: "^pipeline/artifact/", pathNot: ["^pipeline/artifact/$1/", "^pipeline/artifact/[^/]+/index\\.ts$"] },
    },
    {
      name: "settings-neither-side",
      comment: "settings/ is read by the server, the pipeline and the command lines (cli/) alike, so it imports none of them.",
      severity: "error",
      from: { path: "^settings/" },
      to: { path: "^(server|pipeline|cli|scripts)/" },
    },
    {
      name: "no-folder-loop",
      comment:
        "Folders import one way: no folder of server/ or pipeline/ (at any depth) reaches itself through other folders' imports, even where no single file is in a cycle. A loop means neither folder can be read or changed without the other; what both need goes into a folder below them.",
      severity: "error",
      scope: "folder",
      from: { path: "^(server|pipeline)/" },
      to: { circular: true },
    },
    {
      name: "no-circular",
      comment: "No import cycles in production code: a cycle makes load order matter and the modules impossible to read one at a time.",
      severity: "error",
      from: { path: "^(server|pipeline|settings)/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count too: a type from the other side is still a dependency on its code's shape.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
