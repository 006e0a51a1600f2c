import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Reads the per-file profiles bench/suite-profile-setup.ts wrote and says
 * where the test workers' own thread spent its time: by test file, and by
 * what ran (our sources by folder, each library, Node's native work).
 * "spawn" is a child process started from the worker; a synchronous one
 * (execFileSync) counts the whole wait for it. "read" is mostly a wait
 * too: the tests' synchronous git (helpers/sync-spawn.ts) blocks in
 * readSync until its helper answers. Neither is the worker's CPU.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** What a sample's own frame belongs to: a folder of ours, a package, Node, or V8's own work. */
export function areaOf(functionName: string, url: string, root: string): string {
  if (!url) return functionName || "(native)";
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const [scope = "", name = ""] = url.slice(modules + "node_modules/".length).split("/");
    return scope.startsWith("@") ? `${scope}/${name}` : scope;
  }
  const path = url.replace(/^file:\/\//, "");
  if (path.startsWith(`${root}/`)) {
    const parts = path.slice(root.length + 1).split("/");
    return parts.length > 2 ? parts.slice(0, 2).join("/") : parts.join("/");
  }
  return url.startsWith("node:") ? "node internals" : url;
}

export function summarizeProfiles(dir: string, root: string, top = 12): string[] {
  const byFile = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const name of readdirSync(dir)) {
    const { file, profile } = JSON.parse(readFileSync(join(dir, name), "utf8")) as {
      file: string;
      profile: Profile;
    };
    const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    for (let i = 0; i < profile.samples.length; i++) {
      const frame = nodes.get(profile.samples[i] ?? -1);
      if (!frame || frame.functionName === "(idle)") continue;
      // A sample's time is the gap to the next one.
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      byFile.set(file, (byFile.get(file) ?? 0) + ms);
      const area = areaOf(frame.functionName, frame.url, root);
      byArea.set(area, (byArea.get(area) ?? 0) + ms);
    }
  }
  const busy = [...byFile.values()].reduce((sum, ms) => sum + ms, 0);
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([key, ms]) =>
          `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${key}`,
      );
  return [
    `test workers' main threads: ${(busy / 1000).toFixed(0)} s busy in ${byFile.size} files (sampled every 0.5 ms, which adds to their CPU; waits for synchronous children included)`,
    "  by test file:",
    ...rows(byFile),
    "  by what ran (its own time; spawn = starting a child, and waiting for a synchronous one; read = mostly the tests' synchronous git waiting):",
    ...rows(byArea),
  ];
}
