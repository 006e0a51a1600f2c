import { lt, major, valid } from "semver";
import { type ProjectNodes, readProjectNodes } from "../plan/node/project-node.js";
import { nodeOnPath } from "./tool-engines.js";

/**
 * Whether the checkout wants a newer Node than its commands get: a version
 * file or setting (.nvmrc, devEngines, Volta, pnpm's useNodeVersion), else
 * the lowest Node its CI workflows set up, a major above; or the root
 * package.json's engines.node, whose floor is above. A job on Node 20 for a
 * project developed on 24 fails in setup with an engine error or a syntax
 * error nobody connects to the Node; said first, it is one line to fix (a
 * setup-node step). Undefined when the project names no Node, or the
 * commands' Node is not older.
 */
export async function nodeBelowProject(
  dir: string,
  manifest: Record<string, unknown>,
  env: Readonly<Record<string, string>>,
  /** The project's npm options (.npmrc), where pnpm's `use-node-version` is. */
  npmOptions: Readonly<Record<string, unknown>>,
): Promise<string | undefined> {
  const node = await nodeOnPath(env.PATH ?? "");
  if (!node || !valid(node)) return undefined;
  const nodes = await readProjectNodes({
    dir,
    manifests: [{ path: "package.json", json: manifest }],
    npmOptions,
    runningNode: node,
  });
  return nodeBelow(nodes, node);
}

/** The same from the Nodes a plan already read (DepsPlan.node) and the commands' `node` version. */
export function nodeBelow(nodes: ProjectNodes, node: string): string | undefined {
  if (!valid(node)) return undefined;
  const { development } = nodes;
  const engines = nodes.engines["package.json"];
  const wanted =
    development.role !== "running" &&
    valid(development.version) &&
    major(node) < major(development.version)
      ? development
      : engines && valid(engines.version) && lt(node, engines.version)
        ? engines
        : undefined;
  if (!wanted) return undefined;
  return `the project wants Node ${wanted.label} (${wanted.source}), and the job's commands run Node ${node}, the first \`node\` on the PATH: its install and tests may fail for that alone. Set up that Node before the job (actions/setup-node in the workflow; a newer Node where patchwright runs).`;
}
