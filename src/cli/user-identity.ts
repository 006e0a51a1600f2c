import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Identity } from "../git/commit/commits.js";
import type { CliIo } from "./cli-io.js";

const PATCHWRIGHT: Identity = {
  name: "patchwright",
  email: "patchwright@users.noreply.github.com",
};

/**
 * Who commits made from the CLI are by: the user, as their own git would
 * say. GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL win; then user.name / user.email
 * as `git config` sees them from where the user runs patchwright (the job's
 * own git reads no global config, on purpose, so it cannot ask). patchwright
 * only when nothing is configured. Read once, at the entry, before the agent
 * or any repository code runs and could write a git config.
 */
export async function readUserIdentity(io: Pick<CliIo, "env" | "cwd">): Promise<Identity> {
  const config = await userConfig(io);
  const name = io.env.GIT_AUTHOR_NAME || config.get("user.name");
  const email = io.env.GIT_AUTHOR_EMAIL || config.get("user.email");
  if (!name && !email) return PATCHWRIGHT;
  return { name: name || PATCHWRIGHT.name, email: email || PATCHWRIGHT.email };
}

async function userConfig(io: Pick<CliIo, "env" | "cwd">): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  try {
    const { stdout } = await promisify(execFile)(
      "git",
      ["config", "--get-regexp", "^user\\.(name|email)$"],
      { cwd: io.cwd, env: io.env, encoding: "utf8" },
    );
    // "user.name Ada Lovelace"; a later line overrides an earlier one, as in git.
    for (const line of stdout.split("\n")) {
      const space = line.indexOf(" ");
      if (space > 0) values.set(line.slice(0, space), line.slice(space + 1).trim());
    }
  } catch {
    // Nothing set (git exits 1), no git, or no such directory: nothing configured.
  }
  return values;
}
