import { readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  type ChangeContext,
  type ChangeState,
  commandEnv,
  siteOf,
  withResult,
} from "../../change/context.js";
import { runStepCommand } from "../../change/steps/command.js";
import { identityEnv } from "../../git/commit/commits.js";
import { gitRunner } from "../../git/git-client.js";
import { editManifest, editOf, type ManifestEdit } from "../managers/bump.js";
import { setYamlString } from "../managers/catalog-edit.js";
import { managerCommands } from "../managers/index.js";
import { setJsonString } from "../managers/package-json-edit.js";
import type { Update } from "../update.js";
import type { OverrideMove, PrBump } from "./bump-diff.js";

/**
 * One package of a grouped dependency pull request put back to the version
 * it had before the pull request, in a commit that says so; the other
 * updates stay. The lockfile is the package manager's to write: the range
 * is pinned at the old version for one lockfile step (so the tool locks
 * exactly that version, not the newest the range allows), then written back
 * as it was for a second, which keeps the locked version. The setup
 * commands then install what the lockfile now says. Anything failing leaves
 * the branch as the agent left it, with a warning.
 */
export async function putBack(
  state: ChangeState,
  ctx: ChangeContext,
  bump: PrBump,
  names: readonly string[],
): Promise<ChangeState> {
  const { workspace, sandboxes } = siteOf(state);
  const dir = workspace.dir;
  const updates = bump.updates.filter((u) => names.includes(u.name));
  const overrides = bump.overrideMoves.filter((move) => names.includes(move.name));
  const files = [
    ...new Set([
      ...updates.flatMap((u) => u.locations.map((l) => l.manifest)),
      ...overrides.map((move) => move.file),
      ...(bump.lockfilePath ? [bump.lockfilePath] : []),
    ]),
  ];
  // What goes back: each update's old version; a package only an override moved, the override's old value.
  const back = [
    ...updates.map((u) => ({ name: u.name, from: u.from })),
    ...overrides
      .filter((move) => !updates.some((u) => u.name === move.name))
      .map((move) => ({ name: move.name, from: move.from })),
  ];
  const git = gitRunner(dir, { env: ctx.gitEnv });
  const lockfile = managerCommands(bump.manager).lockfile();
  const run = (command: string, label: string, network: boolean, cwd = dir) =>
    runStepCommand(ctx, {
      command,
      label,
      cwd,
      sandbox: network ? sandboxes.setup : sandboxes.agent,
      ...(network ? { networkSetting: "setup_network" as const } : {}),
      // The project's tool as setup fetched it: corepack's home, `pnpm` by its name in a setup command.
      env: commandEnv(state, ctx),
    });
  const what = back.map((b) => `${b.name} ${b.from}`).join(", ");
  try {
    // The override decides the version: the ranges alone would not move it back.
    await restoreOverrides(dir, overrides);
    for (const spec of ["pinned", "as it was"] as const) {
      await editSpecs(dir, updates, (location) =>
        spec === "pinned" ? location.from : location.spec,
      );
      const locked = await run(
        lockfile,
        `Putting back ${what}: \`${lockfile}\``,
        true,
        join(dir, bump.root),
      );
      if (!locked.passed) throw new Error(`\`${lockfile}\` failed (exit ${locked.exit})`);
    }
    for (const command of ctx.input.setup) {
      const installed = await run(command, `Installing again: \`${command}\``, true);
      if (!installed.passed) throw new Error(`\`${command}\` failed (exit ${installed.exit})`);
    }
  } catch (error) {
    await git(["checkout", "--", ...files]).catch(() => undefined);
    ctx.events.warning(
      `could not put back ${what}: ${(error as Error).message}; the branch keeps the update`,
    );
    return state;
  }
  const commitGit = gitRunner(dir, { env: ctx.gitEnv, extraEnv: identityEnv(ctx.input.identity) });
  await commitGit(["add", "--", ...files]);
  const subject =
    back.length === 1 && back[0]
      ? `Put ${back[0].name} back to ${back[0].from}`
      : `Put ${back.map((b) => b.name).join(", ")} back to their old versions`;
  const body = [
    "The update could not be made to work from this repository (the agent's reason is in the pull request's comment); the other updates of this pull request stay.",
    "",
    ...updates.map((u) => `- ${u.name}: ${u.to} -> ${u.from}`),
    ...overrides.map(
      (move) =>
        `- ${move.file} ${move.field} ${JSON.stringify(move.key)}: ${move.to} -> ${move.from}`,
    ),
  ].join("\n");
  await commitGit(["commit", "--no-verify", "--cleanup=whitespace", "-m", `${subject}\n\n${body}`]);
  const sha = (await git(["rev-parse", "HEAD"])).trim();
  ctx.events.step(`Put back ${what}`);
  return withResult(state, {
    commits: [...state.result.commits, { sha, subject, files, turns: [] }],
  });
}

async function editSpecs(
  dir: string,
  updates: readonly Update[],
  specOf: (location: Update["locations"][number]) => string,
): Promise<void> {
  const byManifest = new Map<string, ManifestEdit[]>();
  for (const update of updates) {
    for (const location of update.locations) {
      if (location.section === "packageManager") continue;
      const edits = byManifest.get(location.manifest) ?? [];
      edits.push(editOf(update, location, specOf(location)));
      byManifest.set(location.manifest, edits);
    }
  }
  for (const [manifest, edits] of byManifest) {
    const path = join(dir, manifest);
    await writeFile(path, editManifest(await readFile(path, "utf8"), edits));
  }
}

/** Each override written back to the value it had before the pull request. */
async function restoreOverrides(dir: string, moves: readonly OverrideMove[]): Promise<void> {
  for (const move of moves) {
    const path = join(dir, move.file);
    const text = await readFile(path, "utf8");
    const edited =
      basename(move.file) === "pnpm-workspace.yaml"
        ? setYamlString(text, move.path, move.from)
        : setJsonString(text, move.path, move.from);
    if (edited === undefined) {
      throw new Error(`${move.file} has no ${move.path.join(".")} to put back`);
    }
    await writeFile(path, edited);
  }
}
