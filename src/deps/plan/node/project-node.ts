import { compare } from "semver";
import { parse as parseYaml } from "yaml";
import { readWorkspaceText } from "../../../sandbox/host-files.js";
import type { DepSection } from "../project.js";
import { readWorkflowNode } from "./ci-node.js";
import { type NodeTarget, parseNodeVersion, safeFloor } from "./node-version.js";
import { devEnginesNode, versionInText } from "./node-version-file.js";

/**
 * The Nodes a project's dependencies run on, for the engines check:
 * - devDependencies run where the project is developed, built and tested:
 *   the version files version managers read (.nvmrc, .node-version,
 *   .tool-versions), package.json `devEngines.runtime`, the runtime the
 *   package manager installs (pnpm's `use-node-version`, `useNodeVersion`,
 *   `executionEnv.nodeVersion`; Volta's `volta.node`), else the CI
 *   workflows' setup-node versions, else the Node running this job (what
 *   `npm outdated` compares with);
 * - runtime dependencies run there too, and for the package's users on
 *   every Node its `engines.node` allows (a workspace's own, else the root's).
 */

export interface ProjectNodes {
  development: NodeTarget;
  /** engines.node of each manifest that states one, by manifest path. */
  engines: Record<string, NodeTarget>;
}

export interface ReadProjectNodesOptions {
  dir: string;
  manifests: ReadonlyArray<{ path: string; json: Record<string, unknown> }>;
  /** The project's npm options (.npmrc), where pnpm's `use-node-version` is. */
  npmOptions: Readonly<Record<string, unknown>>;
  runningNode: string;
}

export async function readProjectNodes(options: ReadProjectNodesOptions): Promise<ProjectNodes> {
  const engines: Record<string, NodeTarget> = {};
  for (const { path, json } of options.manifests) {
    const range = (json.engines as { node?: unknown } | undefined)?.node;
    const floor = typeof range === "string" ? safeFloor(range) : undefined;
    if (typeof range === "string" && floor)
      engines[path] = {
        label: range,
        version: floor,
        source: `${path} engines.node`,
        role: "engines",
      };
  }
  const root = options.manifests[0]?.json ?? {};
  const development =
    (await fromVersionFiles(options.dir)) ??
    fromDevEngines(root) ??
    (await fromPackageManagerRuntime(options.dir, root, options.npmOptions)) ??
    (await readWorkflowNode(options.dir, enginesFloor(engines)).then(
      (found) => found && { ...found, role: "ci" as const },
    ));
  if (development) return { development, engines };
  const running = options.runningNode.replace(/^v/, "");
  return {
    development: { label: running, version: running, source: "this job", role: "running" },
    engines,
  };
}

/**
 * The lowest Node the project's packages say they run on: the root's
 * engines.node, else the lowest a workspace states (babel's root states
 * none, its 149 packages `^22.18.0 || >=24.11.0`). A CI job on an older Node
 * tests what was built there (babel's runtime on Node 10), not the tools.
 */
function enginesFloor(engines: Record<string, NodeTarget>): string | undefined {
  const root = engines["package.json"];
  if (root) return root.version;
  const floors = Object.values(engines).map((target) => target.version);
  return floors.sort(compare)[0];
}

/**
 * The Nodes a dependency must run on: a devDependency the development
 * Node; a runtime one that too and its manifest's engines.node (when the
 * project names no development Node, engines alone, as before).
 */
export function nodeTargetsFor(
  nodes: ProjectNodes,
  entry: { manifest: string; section: DepSection | "packageManager" },
): NodeTarget[] {
  const { development } = nodes;
  if (entry.section === "devDependencies" || entry.section === "packageManager")
    return [development];
  const engines = nodes.engines[entry.manifest] ?? nodes.engines["package.json"];
  if (!engines) return [development];
  return development.role === "running" ? [engines] : [development, engines];
}

async function fromVersionFiles(dir: string): Promise<NodeTarget | undefined> {
  for (const file of [".nvmrc", ".node-version", ".tool-versions"]) {
    const text = await readWorkspaceText(dir, file).catch(() => undefined);
    const line = text === undefined ? undefined : versionInText(text);
    const parsed = line ? parseNodeVersion(line) : undefined;
    if (parsed)
      return { ...parsed, source: parsed.moving ? `${file} ${line}` : file, role: "development" };
  }
  return undefined;
}

/** `devEngines.runtime`'s node entry. */
function fromDevEngines(json: Record<string, unknown>): NodeTarget | undefined {
  const version = devEnginesNode(json);
  const parsed = version === undefined ? undefined : parseNodeVersion(version);
  return parsed && { ...parsed, source: "package.json devEngines.runtime", role: "development" };
}

async function fromPackageManagerRuntime(
  dir: string,
  json: Record<string, unknown>,
  npmOptions: Readonly<Record<string, unknown>>,
): Promise<NodeTarget | undefined> {
  const workspace = await readWorkspaceText(dir, "pnpm-workspace.yaml")
    .then((text) => parseYaml(text) as Record<string, unknown> | null)
    .catch(() => undefined);
  const candidates: Array<[unknown, string]> = [
    [npmOptions["use-node-version"], ".npmrc use-node-version"],
    [workspace?.useNodeVersion, "pnpm-workspace.yaml useNodeVersion"],
    [
      (workspace?.executionEnv as { nodeVersion?: unknown } | undefined)?.nodeVersion,
      "pnpm-workspace.yaml executionEnv.nodeVersion",
    ],
    [(json.volta as { node?: unknown } | undefined)?.node, "package.json volta.node"],
  ];
  for (const [value, source] of candidates) {
    const parsed = typeof value === "string" ? parseNodeVersion(value) : undefined;
    if (parsed) return { ...parsed, source, role: "development" };
  }
  return undefined;
}

/**
 * The Node a plan assumes, as its first lines say it: "Node 24.x (from
 * .nvmrc), runtime dependencies also checked against engines >=16.9.0".
 */
export function nodeStatement(nodes: ProjectNodes): string {
  const { development } = nodes;
  const engines = Object.values(nodes.engines);
  // Each range once, with where it is: react-router's 23 manifests on one
  // range made a first line of 1,458 characters.
  const byRange = new Map<string, string[]>();
  for (const e of engines)
    byRange.set(e.label, [
      ...(byRange.get(e.label) ?? []),
      e.source.replace(/ engines\.node$/, ""),
    ]);
  const where = (files: string[]) =>
    files.length <= 2 ? files.join(", ") : `${files[0]} and ${files.length - 1} more`;
  const enginesText =
    byRange.size <= 1
      ? `engines ${[...byRange.keys()][0] ?? ""}`
      : `engines ${[...byRange].map(([label, files]) => `${label} (${where(files)})`).join(", ")}`;
  if (development.role === "running") {
    const base = `Node ${development.label} (the Node running this job: the project names no development Node)`;
    return engines.length > 0
      ? `${base} for devDependencies; runtime dependencies checked against ${enginesText}`
      : base;
  }
  const base = `Node ${development.label} (from ${development.source})`;
  return engines.length > 0
    ? `${base}, runtime dependencies also checked against ${enginesText}`
    : base;
}
