import { coerce, minVersion, valid, validRange } from "semver";
import { readWorkspaceText } from "../sandbox/host-files.js";

/**
 * The Node a project runs on, for the engines check: package.json
 * `engines.node` (its lowest version), else the version files version
 * managers read (.nvmrc, .node-version, .tool-versions, volta), else the
 * Node this job runs on, which is what `npm outdated` compares with.
 */

export interface ProjectNode {
  /** A concrete version: the oldest the project says it supports. */
  version: string;
  /** Where it came from, for the reason a version is passed over: "package.json engines.node >=18". */
  source: string;
}

export async function readProjectNode(
  dir: string,
  manifest: Record<string, unknown>,
  runningNode: string,
): Promise<ProjectNode> {
  const engines = (manifest.engines as { node?: unknown } | undefined)?.node;
  if (typeof engines === "string") {
    const floor = floorOf(engines);
    if (floor) return { version: floor, source: `package.json engines.node ${engines}` };
  }
  for (const file of [".nvmrc", ".node-version"]) {
    const text = await readWorkspaceText(dir, file).catch(() => undefined);
    const line = text?.split("\n")[0]?.trim();
    const floor = line ? floorOf(line) : undefined;
    if (line && floor) return { version: floor, source: `${file} ${line}` };
  }
  const tools = await readWorkspaceText(dir, ".tool-versions").catch(() => undefined);
  const toolLine = tools?.split("\n").find((l) => /^\s*(nodejs|node)\s+\S/.test(l));
  const toolVersion = toolLine?.trim().split(/\s+/)[1];
  if (toolVersion && floorOf(toolVersion)) {
    return {
      version: floorOf(toolVersion) as string,
      source: `.tool-versions nodejs ${toolVersion}`,
    };
  }
  const volta = (manifest.volta as { node?: unknown } | undefined)?.node;
  if (typeof volta === "string" && floorOf(volta)) {
    return { version: floorOf(volta) as string, source: `package.json volta.node ${volta}` };
  }
  const running = runningNode.replace(/^v/, "");
  return { version: running, source: `the Node running this job (${running})` };
}

/** "v20.11.0" -> 20.11.0, "20" -> 20.0.0, ">=18" -> 18.0.0; aliases such as lts/* -> undefined. */
function floorOf(text: string): string | undefined {
  const cleaned = text.trim().replace(/^v(?=\d)/, "");
  if (valid(cleaned)) return cleaned;
  if (validRange(cleaned)) {
    try {
      return minVersion(cleaned)?.version ?? undefined;
    } catch {
      return undefined;
    }
  }
  return coerce(cleaned)?.version ?? undefined;
}
