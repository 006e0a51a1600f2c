import { buildShellEnv } from "/work/main/src/agent/tools/shell-env.ts";
import { readGitInfo } from "/work/main/src/agent/prompt-context.ts";
import { createSnapshotter } from "/work/main/src/agent/workspace-snapshot.ts";
import { simpleGit } from "/work/main/node_modules/simple-git/dist/index.mjs";
const env = buildShellEnv(process.env);
console.log(Object.keys(env).filter(k => /git|path/i.test(k)));
console.log(await readGitInfo("/work/main", env));
try { console.log(await simpleGit({ baseDir: "/work/main" }).env(env).raw(["rev-parse", "--is-inside-work-tree"])); } catch (e) { console.log("ERR", String(e)); }
