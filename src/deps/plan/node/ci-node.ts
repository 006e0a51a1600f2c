import { readdir } from "node:fs/promises";
import { compare, lt } from "semver";
import { parse as parseYaml } from "yaml";
import { readWorkspaceText, realPathInside } from "../../../sandbox/host-files.js";
import { parseSetupNodeVersion } from "./node-version.js";
import { readNodeVersionFile } from "./node-version-file.js";

/**
 * The Node a project's CI develops on, from its GitHub workflows: every
 * step's `node-version` input (actions/setup-node, and the actions that
 * wrap it or replace it: nuxt's voidzero-dev/setup-vp, typescript-eslint's
 * own ./.github/actions/prepare-install), a matrix value or a workflow or
 * job `env` value included. A composite action of the repository's own
 * (`uses: ./.github/actions/setup`) is read too, and the actions of its
 * own it calls in turn: the `node-version` their steps set, fixed
 * (react-hook-form's 22, effect's 26.4.0) or from an input, which the
 * calling step gives or the action's default (sveltejs/kit's '24',
 * vitest's 24.x, typeorm's "24"); so is the node-version a job
 * passes to a reusable workflow (typeorm's tests on 20 and 24). A
 * `node-version-file` is read the way setup-node reads it
 * (node-version-file.ts): `package.json` gives its engines.node, which
 * setup-node takes as the newest Node the range allows. The
 * development tools run on each of them, so the lowest counts. A job that
 * tests the built package rather than the tools is not counted: one on a
 * Node below the project's own engines.node, or the lowest its packages
 * state when the root states none (a legacy check), one that installs
 * without devDependencies (`--production`, `--omit=dev`), or past the tools'
 * engines (yarn's `--ignore-engines`: for the matrix values its `if:` names).
 */

export interface WorkflowNode {
  label: string;
  version: string;
  source: string;
}

const WORKFLOWS = ".github/workflows";

export async function readWorkflowNode(
  dir: string,
  enginesFloor: string | undefined,
): Promise<WorkflowNode | undefined> {
  const folder = await realPathInside(dir, WORKFLOWS).catch(() => undefined);
  if (!folder) return undefined;
  const files = (await readdir(folder).catch(() => []))
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
  const found: WorkflowNode[] = [];
  const actions = new Map<string, LocalAction | undefined>();
  for (const file of files) {
    const path = `${WORKFLOWS}/${file}`;
    const text = await readWorkspaceText(dir, path).catch(() => undefined);
    if (text === undefined) continue;
    for (const uses of localActionsUsed(text)) await readLocalAction(dir, uses, actions);
    for (const setting of setupNodeVersions(text, path, actions)) {
      const read = await readSetting(dir, setting);
      const parsed = read && parseSetupNodeVersion(read.value);
      if (read && parsed && (!enginesFloor || !lt(parsed.version, enginesFloor)))
        found.push({ label: parsed.label, version: parsed.version, source: read.source });
    }
  }
  return found.sort((a, b) => compare(a.version, b.version))[0];
}

/** The two inputs setup-node takes a version from; `node-version` wins when a step gives both. */
type SettingKind = "node-version" | "node-version-file";

/** A Node version, or the file setup-node reads one from, as a step writes it. */
interface NodeSetting {
  kind: SettingKind;
  value: string;
  /** The workflow or action that writes it. */
  source: string;
}

/** A step's own Node setting, as written: its node-version, else its node-version-file. */
function settingOf(
  given: Record<string, unknown> | undefined,
): { kind: SettingKind; value: string } | undefined {
  for (const kind of ["node-version", "node-version-file"] as const) {
    const value = given?.[kind];
    if (typeof value === "string") return { kind, value };
  }
  return undefined;
}

/** The version a setting names, and where it is written: a file's is read from the tree. */
async function readSetting(
  dir: string,
  setting: NodeSetting,
): Promise<{ value: string; source: string } | undefined> {
  if (setting.kind === "node-version")
    return { value: setting.value, source: `${setting.source} node-version` };
  const read = await readNodeVersionFile(dir, setting.value);
  return (
    read && {
      value: read.value,
      source: `${setting.source} node-version-file ${read.source}`,
    }
  );
}

/**
 * A composite action in the repository: the Node settings its steps make
 * (those of the actions of its own it calls included), and its inputs'
 * defaults.
 */
interface LocalAction {
  path: string;
  settings: NodeSetting[];
  defaults: Record<string, string>;
}

/** How deep composite actions calling composite actions are followed (a loop stops there too). */
const NESTING = 4;

/** The `uses: ./…` of a workflow's steps, as written. */
function localActionsUsed(text: string): string[] {
  return [...text.matchAll(/^\s*(?:-\s+)?uses:\s*["']?(\.\/[^"'\s#]+)/gm)].map((m) => m[1] ?? "");
}

/** Reads (once, into `actions`) the repository's composite action a `uses: ./…` names. */
async function readLocalAction(
  dir: string,
  uses: string,
  actions: Map<string, LocalAction | undefined>,
  depth = 0,
): Promise<LocalAction | undefined> {
  if (actions.has(uses) || depth > NESTING) return actions.get(uses);
  // Taken before reading, so an action that calls itself ends here.
  actions.set(uses, undefined);
  const folder = uses.replace(/^\.\//, "").replace(/\/+$/, "");
  for (const name of ["action.yml", "action.yaml"]) {
    const path = `${folder}/${name}`;
    const text = await readWorkspaceText(dir, path).catch(() => undefined);
    if (text === undefined) continue;
    let doc: unknown;
    try {
      doc = parseYaml(text, { schema: "failsafe" });
    } catch {
      return undefined;
    }
    const steps = record(record(doc)?.runs)?.steps;
    const settings: NodeSetting[] = [];
    for (const step of Array.isArray(steps) ? steps : []) {
      const called = record(step)?.uses;
      const inner =
        typeof called === "string" && called.startsWith("./")
          ? await readLocalAction(dir, called, actions, depth + 1)
          : undefined;
      settings.push(...stepSettings(record(step) ?? {}, path, inner));
    }
    const defaults: Record<string, string> = {};
    for (const [input, spec] of Object.entries(record(record(doc)?.inputs) ?? {})) {
      const value = record(spec)?.default;
      if (typeof value === "string") defaults[input] = value;
    }
    const action = { path, settings, defaults };
    actions.set(uses, action);
    return action;
  }
  return undefined;
}

/**
 * The Node settings a step makes, as written, and where each is written:
 * its own `with` for any action, else what the repository's composite
 * action it runs sets (an input the step gives, or the input's default)
 * when that action sets one.
 */
function stepSettings(
  step: Record<string, unknown>,
  workflow: string,
  action: LocalAction | undefined,
): NodeSetting[] {
  const given = record(step.with);
  // An action that sets no Node of its own may still pass the input on
  // (to another action of its own): the step's value counts, as before.
  if (!action || action.settings.length === 0) {
    const own = settingOf(given);
    return own ? [{ ...own, source: workflow }] : [];
  }
  return action.settings.flatMap((setting) => {
    const input = /^\$\{\{\s*inputs\.([\w-]+)\s*\}\}$/.exec(setting.value.trim())?.[1];
    if (input === undefined) return [setting];
    const passed = given?.[input];
    if (typeof passed === "string") return [{ ...setting, value: passed, source: workflow }];
    const fallback = action.defaults[input];
    return fallback === undefined ? [] : [{ ...setting, value: fallback, source: action.path }];
  });
}

/** Installs that leave devDependencies out: such a job runs the package, not the tools. */
const WITHOUT_DEV = /--production\b|--prod\b|--omit[= ]dev\b|devDependencies/;
/**
 * yarn's install past the tools' engines: a step that needs it runs tools
 * older than the project's (webpack downgrades jest, cspell and lint-staged
 * with `yarn upgrade ... --ignore-engines` on Node 10 through 20).
 */
const IGNORE_ENGINES = /--ignore-engines\b/;

/**
 * The matrix values a job's steps treat as legacy: those an `if:` names for
 * a step that installs with --ignore-engines (`matrix.node-version == '10.x'
 * || ...`), by matrix key; "*" when such a step runs for every value.
 */
function legacyValues(steps: readonly unknown[]): Map<string, Set<string>> | "*" {
  const legacy = new Map<string, Set<string>>();
  for (const step of steps) {
    const run = record(step)?.run;
    if (typeof run !== "string" || !IGNORE_ENGINES.test(run)) continue;
    const condition = record(step)?.if;
    if (typeof condition !== "string") return "*";
    const named = [
      ...condition.matchAll(/matrix(?:\.([\w-]+)|\[["']([\w-]+)["']\])\s*==\s*["']([^"']+)["']/g),
    ];
    if (named.length === 0) return "*";
    for (const [, dotted, bracketed, value] of named) {
      const key = dotted ?? bracketed ?? "";
      legacy.set(key, (legacy.get(key) ?? new Set()).add(value ?? ""));
    }
  }
  return legacy;
}

/** The Node settings of a workflow's setup-node steps, matrix references expanded. */
function setupNodeVersions(
  text: string,
  workflow: string,
  actions: ReadonlyMap<string, LocalAction | undefined>,
): NodeSetting[] {
  let doc: unknown;
  try {
    // Every scalar as written: YAML would read `22.10` as the number 22.1.
    doc = parseYaml(text, { schema: "failsafe" });
  } catch {
    return [];
  }
  const jobs = record(record(doc)?.jobs);
  const workflowEnv = record(record(doc)?.env);
  const out: NodeSetting[] = [];
  for (const job of Object.values(jobs ?? {})) {
    const steps = Array.isArray(record(job)?.steps) ? (record(job)?.steps as unknown[]) : [];
    const runs = steps.map((step) => record(step)?.run).filter((r) => typeof r === "string");
    if (runs.some((r) => WITHOUT_DEV.test(r))) continue;
    const legacy = legacyValues(steps);
    if (legacy === "*") continue;
    const matrix = record(record(record(job)?.strategy)?.matrix);
    const env = { ...workflowEnv, ...record(record(job)?.env) };
    // A job that calls a reusable workflow (`uses: ./.github/workflows/tests-linux.yml`)
    // passes its node-version the way a step passes one to an action (typeorm: 20 and 24).
    for (const step of typeof record(job)?.uses === "string" ? [...steps, job] : steps) {
      const uses = record(step)?.uses;
      if (typeof uses !== "string") continue;
      const action = uses.startsWith("./") ? actions.get(uses) : undefined;
      for (const { kind, value: written, source } of stepSettings(
        record(step) ?? {},
        workflow,
        action,
      )) {
        // ${{ env.PRIMARY_NODE_VERSION }}: the value the workflow or the job sets.
        const named = /^\$\{\{\s*env\.([\w-]+)\s*\}\}$/.exec(written.trim())?.[1];
        const value = named === undefined ? written : env[named];
        if (typeof value !== "string") continue;
        const key = /^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$/.exec(value.trim())?.[1];
        if (key === undefined) {
          if (!value.includes("${{")) out.push({ kind, value, source });
          continue;
        }
        const listed = matrix?.[key];
        const include = Array.isArray(matrix?.include) ? matrix.include : [];
        for (const item of [
          ...(Array.isArray(listed) ? listed : [listed]),
          ...include.map((entry) => record(entry)?.[key]),
        ]) {
          if (typeof item === "string" && !legacy.get(key)?.has(item))
            out.push({ kind, value: item, source });
        }
      }
    }
  }
  return out;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
