/**
 * Bundles the GitHub Action into dist/: ESM files (dist/index.js is what
 * action.yml runs) plus the two WebAssembly files the shell policy loads at
 * run time, so a workflow run needs no install step. Code behind a dynamic
 * import (deps mode and its npm registry client, a good third of the code)
 * goes into its own chunk, so a normal run does not compile it: compiling is
 * most of the load time, and the compile cache (src/action/run.ts) only
 * helps where the runner keeps its temporary folder. `npm run bundle`
 * rewrites dist/; test/action/dist.test.ts fails when the committed bundle
 * differs from what the sources give.
 *
 *   node scripts/bundle-action.mjs [outdir]
 */
import { readFileSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

/**
 * A plugin that gives `importer`'s imports of `filter` a module of the given
 * lines instead: code of a dependency's that the Action never calls, but
 * whose loading costs the start.
 */
function standIn(name, { filter, importer }, lines) {
  return {
    name,
    setup(builder) {
      builder.onResolve({ filter }, (args) =>
        importer.test(args.importer) ? { path: args.path, namespace: name } : undefined,
      );
      builder.onLoad({ filter: /.*/, namespace: name }, () => ({
        loader: "js",
        contents: lines.join("\n"),
      }));
    },
  };
}

/**
 * @actions/core imports its HTTP client (and with it undici, ~800 kB) only
 * for getIDToken (OIDC), which the Action never calls. Loading it anyway
 * cost about 100 ms per run, so the bundle gets a stand-in that says so.
 * Only @actions/core's import: @actions/artifact, loaded at the end of a
 * run, needs the real one.
 */
const withoutOidcClient = standIn(
  "oidc-stand-in",
  { filter: /^@actions\/http-client(\/.*)?$/, importer: /[\\/]@actions[\\/]core[\\/]/ },
  [
    "const missing = () => { throw new Error('the patchwright bundle leaves out OIDC (core.getIDToken)'); };",
    "export class HttpClient { constructor() { missing(); } }",
    "export class BearerCredentialHandler { constructor() { missing(); } }",
  ],
);

/**
 * @actions/core re-exports `platform` (the runner's OS details), whose module
 * imports @actions/exec and with it @actions/io, node:assert, node:timers
 * and node:child_process: 4-5 ms of loading before the Action's first
 * request, for code the Action never calls (it reads no core.platform). The
 * bundle gets a stand-in with the same names.
 */
const withoutCorePlatform = standIn(
  "core-platform-stand-in",
  { filter: /^\.\/platform\.js$/, importer: /[\\/]@actions[\\/]core[\\/]lib[\\/]core\.js$/ },
  [
    "export const platform = process.platform;",
    "export const arch = process.arch;",
    "export const isWindows = platform === 'win32';",
    "export const isMacOS = platform === 'darwin';",
    "export const isLinux = platform === 'linux';",
    "export function getDetails() { throw new Error('the patchwright bundle leaves out core.platform.getDetails'); }",
  ],
);

/**
 * zod ships its error messages in some fifty languages (260 kB, a sixth of
 * the bundle) behind `z.locales`; patchwright speaks zod's default English
 * and never switches, so the bundle keeps only that one.
 */
const englishZodOnly = {
  name: "english-zod-only",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      loader: "js",
      resolveDir: dirname(args.path),
      contents: 'export { default as en } from "./en.js";\n',
    }));
  },
};

/**
 * Anthropic's SDK builds a `Headers` for every request and asks whether a
 * body is a `FormData`: Node's globals, whose first use loads undici whole
 * (25-40 ms of the Action's way to its first model request on the 2-core
 * VM). The Action sends the SDK's requests through node:https
 * (src/github/rest/http-fetch.ts `streamingFetch`), so in the bundle those
 * two names, in the SDK's own files, are http-fetch.ts's stand-ins:
 * `FetchHeaders`, and `NoFormData`, which no body is an instance of
 * (patchwright sends no forms). A file that binds either name itself fails
 * the build (a second declaration). test/action/startup.test.ts fails when
 * a run has loaded undici by its first model request.
 */
const HTTP_FETCH = join(ROOT, "src/github/rest/http-fetch.ts");
const SDK_STAND_INS = { Headers: "FetchHeaders", FormData: "NoFormData" };
const anthropicSdkWithoutUndici = {
  name: "anthropic-sdk-without-undici",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]@anthropic-ai[\\/]sdk[\\/].*\.m?js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const used = Object.entries(SDK_STAND_INS).filter(([global]) =>
        new RegExp(`(?<![.\\w$])${global}(?![\\w$])`).test(source),
      );
      if (used.length === 0) return undefined;
      const names = used.map(([global, standIn]) => `${standIn} as ${global}`).join(", ");
      return {
        loader: "js",
        resolveDir: dirname(args.path),
        contents: `import { ${names} } from ${JSON.stringify(HTTP_FETCH)};\n${source}`,
      };
    });
  },
};

/**
 * Bedrock's and Vertex's SDKs are built apart (buildCloudSdks), each with
 * its own copy of Anthropic's SDK: built together with the Messages client
 * (src/agent/model/messages-client.ts), every module of Anthropic's SDK they
 * use lands in the one chunk all three share, and an Anthropic run loaded
 * 350 kB for the 130 it needs (~25 ms of the Action's start on the 2-core VM).
 * A client's errors are then its own copy's classes: anthropic.ts reads them
 * from the client (errorClassesOf).
 */
const CLOUD_SDKS = {
  "bedrock-sdk": "@anthropic-ai/bedrock-sdk",
  "vertex-sdk": "@anthropic-ai/vertex-sdk",
  // vertex.ts gives the Vertex SDK a GoogleAuth of its own: from the same build, one copy.
  "google-auth": "google-auth-library",
};
/** Package name → the cloud build's file for it. */
const CLOUD_FILES = new Map(
  Object.entries(CLOUD_SDKS).map(([name, pkg]) => [pkg, `./cloud-${name}.js`]),
);
const cloudSdksApart = {
  name: "cloud-sdks-apart",
  setup(builder) {
    const names = [...CLOUD_FILES.keys()].map((pkg) => pkg.replace(/[.]/g, "\\."));
    builder.onResolve({ filter: new RegExp(`^(${names.join("|")})$`) }, (args) => ({
      path: CLOUD_FILES.get(args.path),
      external: true,
    }));
  },
};

/**
 * An ESM import of a Node built-in has Node build that module's ESM facade,
 * which reads every export, lazy ones included: node:http's WebSocket loads
 * undici (the global fetch's library, about 40 ms of the Action's start on
 * Node 24, before any request), node:fs's ReadStream its streams (3-4 ms),
 * node:util's diff its diff code (2 ms), its parseArgs its argument parser
 * (compiled from source, whole, when read as the job's modules load under
 * V8's --no-lazy: src/action/compile-cache.ts); and each facade costs ~0.3
 * ms more. The bundle takes the built-ins its ES modules import from
 * `process.getBuiltinModule` instead (src/github/rest/http-fetch.ts says
 * why the Action's API calls do without undici), with the exports listed
 * in builtin-exports.json: a fixed list, so that the bundle is the same
 * whatever Node builds it: Node 24's exports (what the Action runs on; a
 * newer one reads as undefined on Node 20, and Node 20's own old ones are
 * deprecated on 24, where reading them warns) but the costly lazy ones
 * below. test/action/startup.test.ts checks it against Node 24. The
 * default export is the module itself (live `globalAgent`); a named one is
 * read once, as the module loads, as a facade reads it.
 */
export const BUILTIN_EXPORTS = JSON.parse(
  readFileSync(join(ROOT, "scripts/builtin-exports.json"), "utf8"),
);
/** Node 24's exports left out of BUILTIN_EXPORTS: reading them loads code a run does not need. */
export const LAZY_EXPORTS = {
  "node:http": ["WebSocket", "CloseEvent", "MessageEvent"],
  "node:fs": ["ReadStream", "WriteStream", "FileReadStream", "FileWriteStream", "Utf8Stream"],
  "node:util": [
    "diff",
    "setTraceSigInt",
    "TextDecoder",
    "TextEncoder",
    "MIMEType",
    "MIMEParams",
    "parseArgs",
  ],
  "node:crypto": ["webcrypto", "subtle"],
};

const builtinsWithoutFacade = {
  name: "builtins-without-facade",
  setup(builder) {
    const names = Object.keys(BUILTIN_EXPORTS).map((name) => name.slice("node:".length));
    builder.onResolve({ filter: new RegExp(`^(node:)?(${names.join("|")})$`) }, (args) =>
      args.kind === "import-statement"
        ? { path: `node:${args.path.replace(/^node:/, "")}`, namespace: "builtin-without-facade" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "builtin-without-facade" }, (args) => ({
      loader: "js",
      contents: [
        `const builtin = process.getBuiltinModule(${JSON.stringify(args.path)});`,
        "export default builtin;",
        `export const { ${BUILTIN_EXPORTS[args.path].join(", ")} } = builtin;`,
      ].join("\n"),
    }));
  },
};

/**
 * What the job imports when it first needs it (our modules: the tools'
 * work, the sandbox's setup, the Messages client, the page renderer, deps
 * mode; libraries: openai, the MCP SDK's client, web-tree-sitter,
 * @actions/artifact) loads after main.ts and its modules. esbuild does not know that: it
 * gives each set of entry points that share a module a chunk of its own, so
 * main's modules were cut into 38 files by which lazy module also uses
 * which of them, and Node pays for each file it loads (resolving, reading,
 * the compile cache's lookup, linking: ~0.35 ms a module on the 2-core VM,
 * measured with 30 small modules against the same code in one). A dynamic
 * import from our code (of an ES module) goes through a stand-in here
 * that imports main.ts first and re-exports the module: main's modules are
 * then shared by every lazy entry, one set, and load in a few files (41 -> 23
 * before the first model request; valgrind's count to it for a
 * workflow_dispatch, `BENCH_ACTION_INSTRUCTIONS=1 npm run bench -- action`:
 * 547 -> 521M instructions with a warm compile cache, 714 -> 658M with a cold
 * one). At run time the import of main.ts finds it loaded: these imports run
 * inside main's job.
 * The libraries' imports, the same way: 20 -> 14 files before the first
 * request, and an issue_comment's count to it with a warm compile cache
 * 522 -> 508M instructions (valgrind, medians of six runs each).
 * run.ts's own imports are left alone: they load before main (early-fetch.ts
 * starts git first); so are a CommonJS library's (yaml: `export *` from it
 * is a copy made at run time) and the cloud SDKs' (external: their own build).
 */
const MAIN = join(ROOT, "src/action/main.ts");
const RUN = join(ROOT, "src/action/run.ts");
const SRC = join(ROOT, "src") + sep;
const AFTER_MAIN = "after-main";
/** `file` from the repository's root, with forward slashes (as esbuild's metafile names inputs). */
const rootPath = (file) => relative(ROOT, file).split(sep).join("/");
/**
 * A module's format and the names its own statements export, as esbuild
 * reads them (`export *` adds none): a stand-in re-exports `default`
 * itself, which `export *` leaves out, and a CommonJS module keeps its own
 * chunk (`export *` from it is a copy made at run time).
 */
export async function moduleShape(source, loader) {
  const { metafile } = await build({
    stdin: { contents: source, loader },
    write: false,
    metafile: true,
    format: "esm",
    logLevel: "silent",
  });
  return {
    esm: Object.values(metafile.inputs).some((input) => input.format === "esm"),
    exports: Object.values(metafile.outputs).flatMap((output) => output.exports),
  };
}

const lateImportsAfterMain = {
  name: "late-imports-after-main",
  setup(builder) {
    builder.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind !== "dynamic-import" || args.namespace !== "file") return undefined;
      if (!args.importer.startsWith(SRC) || args.importer === RUN) return undefined;
      const target = await builder.resolve(args.path, {
        kind: "import-statement",
        importer: args.importer,
        resolveDir: args.resolveDir,
      });
      if (target.errors.length > 0) return { errors: target.errors };
      if (target.external || target.namespace !== "file") return undefined;
      const source = await readFile(target.path, "utf8");
      const shape = await moduleShape(source, target.path.endsWith(".ts") ? "ts" : "js");
      if (!shape.esm) return undefined;
      // Paths from the root, as the stand-in's name and in its imports: the
      // chunks' names (hashes) are then the same wherever the repository is.
      return {
        path: rootPath(target.path),
        namespace: AFTER_MAIN,
        pluginData: { hasDefault: shape.exports.includes("default") },
      };
    });
    builder.onLoad({ filter: /.*/, namespace: AFTER_MAIN }, async (args) => {
      const target = JSON.stringify(`./${args.path}`);
      return {
        loader: "js",
        resolveDir: ROOT,
        contents: [
          `import ${JSON.stringify(`./${rootPath(MAIN)}`)};`,
          `export * from ${target};`,
          ...(args.pluginData.hasDefault ? [`export { default } from ${target};`] : []),
        ].join("\n"),
      };
    });
  },
};

/**
 * Fails the build when code that runs before main.ts loads (what run.ts,
 * early-fetch.ts and zod-jitless.ts import statically) imports one of the
 * stand-ins above: it would load main's modules ahead of zod-jitless.ts and
 * of the early fetch. `inputs` is the metafile's.
 */
export function checkLateImports(inputs) {
  const early = new Set();
  const pending = ["src/action/run.ts", "src/action/early-fetch.ts", "src/action/zod-jitless.ts"];
  while (pending.length > 0) {
    const path = pending.pop();
    if (early.has(path) || !inputs[path]) continue;
    early.add(path);
    for (const edge of inputs[path].imports) {
      if (edge.kind !== "dynamic-import" && !edge.external) pending.push(edge.path);
    }
  }
  const misplaced = [];
  for (const [path, input] of Object.entries(inputs)) {
    for (const edge of input.imports) {
      const late = edge.kind === "dynamic-import" && edge.path.startsWith(`${AFTER_MAIN}:`);
      if (late && early.has(path)) misplaced.push(`${path} -> ${edge.path}`);
    }
  }
  if (misplaced.length > 0) {
    throw new Error(
      `code that runs before main.ts loads imports a module that loads main.ts: ${misplaced.join("; ")}`,
    );
  }
}

/**
 * The first character past ASCII in each of these files' text, as "file: ...text...".
 *
 * The bundle is kept to ASCII. esbuild escapes other characters in strings, but
 * not in regular expressions or tagged templates (that would change their
 * source), so there the sources write them as \u escapes. Why: V8 holds a
 * module's source with one such character as a string of two bytes a
 * character, and Node's compile cache hashes each module's source in UTF-8
 * on every run, cache warm or not: converting such a string is its slow way.
 * Four chunks with a few of them cost the Action 9-11M instructions more to
 * its first model request (of ~470M warm and ~650M cold; Node 24.9,
 * valgrind's cachegrind, the workflow_dispatch run of bench/action.ts).
 */
export function nonAsciiIn(files) {
  const found = [];
  for (const [file, text] of files) {
    const at = text.search(/[\u0080-\uffff]/);
    if (at >= 0) found.push(`${file}: ...${text.slice(Math.max(0, at - 40), at + 10)}...`);
  }
  return found;
}

/** CommonJS dependencies bundled into ESM still call require() for Node built-ins. */
const BANNER =
  'const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);';

/** Chunk file names (`[name]-[hash].js`, the name may have capitals): the hash changes with the code. */
const CHUNK = /^[A-Za-z0-9_-]+-[A-Z0-9]{8}\.js$/;

export async function bundleAction(outdir = join(ROOT, "dist")) {
  await mkdir(outdir, { recursive: true });
  // Chunks of an earlier build would linger next to the new ones.
  for (const name of await readdir(outdir)) {
    if (CHUNK.test(name)) await rm(join(outdir, name));
  }
  const common = {
    absWorkingDir: ROOT,
    outdir,
    splitting: true,
    bundle: true,
    platform: "node",
    target: "node24",
    format: "esm",
    banner: { js: BANNER },
    legalComments: "none",
    minify: true,
    metafile: true,
    logLevel: "warning",
  };
  const [result, cloud] = await Promise.all([
    build({
      ...common,
      entryPoints: { index: join(ROOT, "src/action/run.ts") },
      chunkNames: "[name]-[hash]",
      plugins: [
        withoutOidcClient,
        withoutCorePlatform,
        englishZodOnly,
        cloudSdksApart,
        builtinsWithoutFacade,
        anthropicSdkWithoutUndici,
        lateImportsAfterMain,
      ],
    }),
    build({
      ...common,
      // Package names: esbuild resolves them as an import would (their ESM entry).
      entryPoints: Object.fromEntries(
        Object.entries(CLOUD_SDKS).map(([name, pkg]) => [`cloud-${name}`, pkg]),
      ),
      chunkNames: "cloud-[name]-[hash]",
    }),
  ]);
  // A namespace import's member the stand-ins do not export (a built-in's
  // export missing from builtin-exports.json) would read as undefined at run time.
  const undefinedImports = result.warnings.filter((warning) =>
    warning.text.includes("will always be undefined"),
  );
  if (undefinedImports.length > 0) {
    throw new Error(
      `the bundle reads imports that do not exist: ${undefinedImports.map((w) => w.text).join("; ")}`,
    );
  }
  checkLateImports(result.metafile.inputs);
  const outputs = Object.keys({ ...result.metafile.outputs, ...cloud.metafile.outputs })
    .filter((file) => file.endsWith(".js"))
    .map((file) => resolve(ROOT, file));
  const texts = await Promise.all(outputs.map((file) => readFile(file, "utf8")));
  const nonAscii = nonAsciiIn(outputs.map((file, i) => [relative(outdir, file), texts[i] ?? ""]));
  if (nonAscii.length > 0) {
    throw new Error(
      `the bundle holds characters past ASCII; write them as \\u escapes in the sources: ${nonAscii.join("; ")}`,
    );
  }
  await Promise.all([
    copyFile(require.resolve("web-tree-sitter/tree-sitter.wasm"), join(outdir, "tree-sitter.wasm")),
    copyFile(
      require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"),
      join(outdir, "tree-sitter-bash.wasm"),
    ),
    // The bundle is ESM wherever it is copied, whatever package.json is above it.
    writeFile(join(outdir, "package.json"), '{ "type": "module" }\n'),
  ]);
  return { ...result.metafile, outputs: { ...result.metafile.outputs, ...cloud.metafile.outputs } };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outdir = resolve(process.argv[2] ?? join(ROOT, "dist"));
  const metafile = await bundleAction(outdir);
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  console.log(`bundled the Action into ${outdir} (${Math.round(bytes / 1024)} kB of JavaScript)`);
}
