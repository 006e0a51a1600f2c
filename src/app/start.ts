import { readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { routeFetchThroughProxy } from "../service/fetch-proxy.js";
import { isDebugLevel, refusalText } from "../service/startup-refusal.js";
import { checkAppCanStart } from "./start-checks.js";

/**
 * `npm start`: checks what the App needs (start-checks.ts), so that a reason
 * not to start is one line naming the setting, then runs Probot on
 * ./index.js as `probot run` does. Without APP_ID that is Probot's setup
 * page, which registers the App: nothing of ours is checked then.
 */

// Probot's own reading of .env (its applyEnv, again in run()): the file's values win.
const dotEnv = join(process.cwd(), ".env");
try {
  Object.assign(process.env, parseEnv(readFileSync(dotEnv, "utf8")));
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}

if (process.env.APP_ID) {
  try {
    await checkAppCanStart(process.env);
  } catch (error) {
    process.stderr.write(refusalText(error, { debug: isDebugLevel(process.env.LOG_LEVEL) }));
    process.exit(1);
  }
}

// GitHub's and the model's requests through the machine's proxy, if it has one.
await routeFetchThroughProxy(process.env);

// Loaded only now: a refusal comes without loading Probot, or the App.
const { run } = await import("probot");
// index.js when built, index.ts when run from the sources.
const self = fileURLToPath(import.meta.url);
await run([join(dirname(self), `index${extname(self)}`)]);
