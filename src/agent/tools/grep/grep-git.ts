import { StringDecoder } from "node:string_decoder";
import { abortError } from "../../../git/git-client.js";
import { streamInGroup } from "../../../spawner.js";
import type { ToolContext } from "../define-tool.js";
import { compareStrings, isSkippedPath } from "../fs/workspace-files.js";
import { GIT_FATAL, isNotARepository, runGit, toolGitEnv } from "../git-exec.js";
import type { MatchCollector } from "./grep-matches.js";
import type { LineTest } from "./grep-scan.js";

/**
 * What git contributes to a search, outside a repository null:
 * - the lines holding one of the pattern's literals (`git grep -F`, far
 *   faster than reading every file here), each tested with the pattern
 *   itself and added to `matches`; `rescan` lists the files git could not
 *   show line by line as read_file numbers them (binary to git, CR-only);
 * - without literals, the files to read: tracked and untracked, not ignored.
 */
export type GitSearch = { rescan: string[] } | { files: string[] };

export async function gitSearch(
  ctx: ToolContext,
  specs: readonly string[],
  test: LineTest,
  matches: MatchCollector,
): Promise<GitSearch | null> {
  if (test.literals) return candidateLines(ctx, specs, test, test.literals, matches);
  const listed = await runGit(
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...specs],
    { cwd: ctx.root, env: ctx.env, signal: ctx.signal },
  ).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  });
  if (listed === null || isNotARepository(listed)) return null;
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr.trim()}`);
  const paths = listed.stdout.split("\0").filter((path) => path !== "" && !isSkippedPath(path));
  paths.sort(compareStrings);
  // A file with merge conflicts is listed once per stage; sorted, repeats are neighbours.
  return { files: paths.filter((path, i) => path !== paths[i - 1]) };
}

const BINARY = /^Binary file (.+) matches$/;

/**
 * Streams `git grep -F` over the literals, so a literal on every line of the
 * repository costs memory only for the matches kept. The C locale: -F and
 * -i compare bytes and ASCII letters, whatever the host's locale says.
 */
function candidateLines(
  ctx: ToolContext,
  specs: readonly string[],
  test: LineTest,
  literals: readonly string[],
  matches: MatchCollector,
): Promise<GitSearch | null> {
  const args = [
    "grep",
    "-n",
    "-z",
    "--no-color",
    "--untracked",
    "-F",
    ...(test.ignoreCase ? ["-i"] : []),
    ...literals.flatMap((literal) => ["-e", literal]),
    "--",
    ...specs,
  ];
  const rescan = new Set<string>();
  const take = (line: string): void => {
    const binary = line.includes("\0") ? null : BINARY.exec(line);
    if (binary) {
      rescan.add(binary[1] ?? "");
      return;
    }
    const [path = "", number = "", ...rest] = line.split("\0");
    if (isSkippedPath(path) || rescan.has(path)) return;
    let text = rest.join("\0");
    const lineNo = Number(number);
    if (lineNo === 1) {
      // read_file splits a file with CRs but no LF at its CRs: git cannot number those lines.
      if (/\r(?!$)/.test(text)) {
        rescan.add(path);
        return;
      }
      text = text.replace(/^\uFEFF/, "");
    }
    text = text.replace(/\r$/, "");
    if (test.regex.test(text)) matches.add(path, lineNo, text);
  };
  return new Promise((resolve, reject) => {
    if (ctx.signal.aborted) {
      reject(abortError(ctx.signal));
      return;
    }
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let stderr = "";
    let exitCode: number | null = null;
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener("abort", stop);
      done();
    };
    // Streamed, from the spawner's helper when it is up: each line is tested as it comes.
    const run = streamInGroup(
      "git",
      args,
      { cwd: ctx.root, env: { ...toolGitEnv(ctx.env), LC_ALL: "C" } },
      {
        output: (stream, chunk) => {
          if (stream === "stderr") {
            if (stderr.length < 10_000) stderr += chunk.toString("utf8");
            return;
          }
          const lines = (pending + decoder.write(chunk)).split("\n");
          pending = lines.pop() ?? "";
          for (const line of lines) take(line);
        },
        error: (error: NodeJS.ErrnoException) =>
          settle(() => (error.code === "ENOENT" ? resolve(null) : reject(error))),
        exit: (code) => {
          exitCode = code;
        },
        close: () =>
          settle(() => {
            pending += decoder.end();
            if (pending) take(pending);
            if (exitCode === 0 || exitCode === 1)
              resolve({ rescan: [...rescan].sort(compareStrings) });
            else if (exitCode === GIT_FATAL && /not a git repository/i.test(stderr)) resolve(null);
            else reject(new Error(`git grep exited with ${exitCode}: ${stderr.trim()}`));
          }),
      },
    );
    const stop = () => {
      run.killGroup("SIGTERM");
      settle(() => reject(abortError(ctx.signal)));
    };
    ctx.signal.addEventListener("abort", stop, { once: true });
  });
}
