import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  loadPolicyRules,
  type PolicyConfigInput,
  type PolicyRules,
} from "../../../src/agent/policy/policy.js";

export interface PolicyWorkspace {
  /** Workspace root (real path). */
  root: string;
  /** A folder next to the workspace, for symlinks that escape. */
  outside: string;
  rules(config?: PolicyConfigInput): Promise<PolicyRules>;
  remove(): Promise<void>;
}

/**
 * A workspace with package.json scripts (build, test, lint), one installed
 * npx tool (tsx), a .git folder and symlinks that lead out of the workspace
 * and into .git, shared by a test file (create in beforeAll).
 */
export async function makePolicyWorkspace(): Promise<PolicyWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "pw-policy-")));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(join(root, ".git"), { recursive: true });
  await mkdir(join(root, "node_modules", ".bin"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(
    join(root, "package.json"),
    JSON.stringify({ scripts: { build: "tsc", test: "vitest run", lint: "biome check" } }),
  );
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(join(root, ".git", "config"), "[core]\n");
  // sed and awk program files, checked like inline programs.
  await writeFile(join(root, "src", "fix.sed"), "s/a/b/g\n/^$/d\n");
  await writeFile(join(root, "src", "sum.awk"), "{ s += $1 }\nEND { print s }\n");
  await writeFile(join(root, "src", "run.sed"), "s/a/b/\n1e id\n");
  await writeFile(join(root, "src", "write.sed"), "/x/w /tmp/pwned\n");
  await writeFile(join(root, "src", "run.awk"), 'BEGIN { system("id") }\n');
  await writeFile(join(root, "src", "write.awk"), '{ print > "/tmp/pwned" }\n');
  await writeFile(join(root, "node_modules", ".bin", "tsx"), "#!/bin/sh\n");
  await writeFile(join(outside, "secret.txt"), "secret\n");
  await symlink(outside, join(root, "escape"));
  await symlink(join(root, ".git"), join(root, "gitlink"));
  return {
    root,
    outside,
    rules: (config = {}) => loadPolicyRules(config, { root }),
    remove: () => rm(base, { recursive: true, force: true }),
  };
}
