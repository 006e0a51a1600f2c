import { blockquote, clip, inlineCode } from "../../github/markdown.js";
import * as z from "../../zod.js";

/**
 * A plan, as the model writes it and as the thread keeps it. Pure.
 *
 * The model ends its read-only run with a `plan-json` block (PLAN_FORMAT);
 * `parsePlan` reads it. The plan comment (`renderPlanComment`) starts with
 * a hidden marker holding what a later go needs and cannot read from the
 * words: the original task, who asked, the files planned, and, once a go
 * took it, who said go (so a 👍 and `@agent go` never both run it). The
 * plan's words sit between that marker and an end marker: a go reads them
 * from the comment as it is then (`planTextOf`), edits by a maintainer
 * included.
 */

export const PLAN_FORMAT = [
  "You are making a plan, not the change: read the code (read_file, grep_search, list_files, read-only shell commands) until you know what the change needs, but do not change any file; the read-only preset refuses every write.",
  "When you know, answer with one short paragraph saying what you would do and why, then the plan as one fenced block tagged plan-json, in this shape:",
  [
    "```plan-json",
    '{"files": [{"path": "src/example.ts", "change": "what changes in it"}],',
    ' "approach": ["first step", "second step"],',
    ' "tests": ["a test to add, or a command to run"],',
    ' "risks": ["what could break, and for whom"],',
    ' "complexity": "small"}',
    "```",
  ].join("\n"),
  "`files`: every file you expect to change or add, from the repository's root. `complexity`: your judgement of the work: small (a few lines in one place), medium (several places, some new tests) or large (a new design, many callers). A person reads the plan and says go before anyone changes the code.",
].join("\n\n");

export type Complexity = "small" | "medium" | "large";

export interface ProposedPlan {
  summary: string;
  files: Array<{ path: string; change: string }>;
  approach: string[];
  tests: string[];
  risks: string[];
  complexity: Complexity;
}

/** The plan read from the model's answer, or its words as they are and why they could not be read. */
export type ReadPlan = { plan: ProposedPlan } | { text: string; problem: string };

/** The plan block's schemas: only a plan's answer reads them. */
const planSchemas = z.onFirstUse(() => {
  const text = z.string().check(z.trim());
  /** Absent or unreadable: undefined, never a failed plan. */
  const lenient = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);
  const list = z.pipe(
    z.pipe(
      z.union([z.array(z.unknown()), z.string()]),
      z.transform((value) => (Array.isArray(value) ? value : [value])),
    ),
    z.transform((items) =>
      items.flatMap((item) => {
        const line = typeof item === "string" ? item : JSON.stringify(item);
        return line.trim() ? [line.trim()] : [];
      }),
    ),
  );
  const fileEntry = z.union([
    z.pipe(
      text.check(z.minLength(1)),
      z.transform((path) => ({ path, change: "" })),
    ),
    z.pipe(
      z.object({
        path: text.check(z.minLength(1)),
        change: lenient(z.string().check(z.trim())),
        why: lenient(z.string().check(z.trim())),
      }),
      z.transform((file) => ({ path: file.path, change: file.change || file.why || "" })),
    ),
  ]);
  const planJson = z.object({
    summary: lenient(text),
    files: z.array(z.unknown()),
    approach: lenient(list),
    tests: lenient(list),
    risks: lenient(list),
    complexity: lenient(z.enum(["small", "medium", "large"])),
  });
  return { fileEntry, planJson };
});

const BLOCK = /(`{3,})(plan-json|json)[^\n]*\n([\s\S]*?)\n\1/g;

/** Longest a plan's piece may be in the comment; the whole stays far below GitHub's limit. */
const MAX_ITEM_CHARS = 600;
const MAX_ITEMS = 60;

export function parsePlan(finalText: string): ReadPlan {
  for (const block of finalText.matchAll(BLOCK)) {
    const named = block[2] === "plan-json";
    let json: unknown;
    try {
      json = JSON.parse(block[3] ?? "");
    } catch (error) {
      if (!named) continue;
      return {
        text: finalText.trim(),
        problem: `its plan-json block is not JSON (${String(error)})`,
      };
    }
    const { fileEntry, planJson } = planSchemas();
    const parsed = planJson.safeParse(json);
    if (!parsed.success) {
      if (!named) continue;
      return { text: finalText.trim(), problem: "its plan-json block has no list of files" };
    }
    const data = parsed.data;
    const files = data.files.flatMap((item) => {
      const entry = fileEntry.safeParse(item);
      if (!entry.success) return [];
      const path = normalPath(entry.data.path);
      return path ? [{ path, change: entry.data.change }] : [];
    });
    const prose = finalText.replace(block[0], "").trim();
    return {
      plan: {
        summary: data.summary || prose,
        files: unique(files).slice(0, MAX_ITEMS),
        approach: (data.approach ?? []).slice(0, MAX_ITEMS),
        tests: (data.tests ?? []).slice(0, MAX_ITEMS),
        risks: (data.risks ?? []).slice(0, MAX_ITEMS),
        complexity: data.complexity ?? "medium",
      },
    };
  }
  return { text: finalText.trim(), problem: "it has no plan-json block" };
}

function unique(files: Array<{ path: string; change: string }>) {
  const seen = new Set<string>();
  return files.filter((file) => !seen.has(file.path) && seen.add(file.path));
}

/** `./src/a.ts`, `/src/a.ts` and `src/a.ts` are one file. */
export function normalPath(path: string): string {
  return path
    .trim()
    .replace(/^\.?\/+/, "")
    .replace(/\/+$/, "");
}

// ---------------------------------------------------------------------------
// The marker

const MARKER = "patchwright-plan";
const END_MARKER = "<!-- patchwright-plan-end -->";
const MARKER_LINE = /<!-- patchwright-plan (\{[\s\S]*?\}) -->/;

/** Read only from a thread that holds a plan comment. */
const planMarkerSchema = z.onFirstUse(() =>
  z.object({
    v: z.literal(1),
    /** The task as asked (the request's words, redacted), and who asked. */
    task: z.string(),
    by: z.string(),
    /** The files the plan names, for the pull request's "where it differs". */
    files: z.array(z.string()),
    /** The job that made the plan, and the request it answered. */
    job: z.optional(z.string()),
    request: z.optional(z.string()),
    /** Set by the go that took the plan: there is never a second one. */
    went: z.optional(
      z.object({
        by: z.string(),
        at: z.string(),
        job: z.optional(z.string()),
        url: z.optional(z.string()),
      }),
    ),
  }),
);

export type PlanMarker = z.infer<ReturnType<typeof planMarkerSchema>>;

/**
 * The marker as an HTML comment: JSON whose `<`, `>` and `-` are written as
 * \u escapes, so no task or path can close the comment early or forge the
 * end marker.
 */
export function renderPlanMarker(marker: PlanMarker): string {
  const json = JSON.stringify(marker).replace(
    /[<>-]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `<!-- ${MARKER} ${json} -->`;
}

/** The first marker in a comment (the one the bot put at its top), or none. */
export function readPlanMarker(body: string): PlanMarker | undefined {
  const found = MARKER_LINE.exec(body);
  if (!found) return undefined;
  try {
    const parsed = planMarkerSchema().safeParse(JSON.parse(found[1] ?? ""));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The model's words can hold no HTML comment: none of them passes for a marker. */
function quiet(words: string): string {
  return words.replace(/<!--/g, "&lt;!--").replace(/-->/g, "--&gt;");
}

function item(words: string): string {
  return quiet(clip(words.replace(/\s*\n\s*/g, " ").trim(), MAX_ITEM_CHARS));
}

export interface PlanCommentInput {
  marker: PlanMarker;
  read: ReadPlan;
  /** The estimated cost, in words (plan-cost.ts). */
  estimate: string;
  /** How to go ahead (the phrase as configured). */
  triggerPhrase: string;
}

/** The plan comment: the marker, the plan (a checklist), its estimated cost, and how to go ahead. */
export function renderPlanComment(input: PlanCommentInput): string {
  const { read } = input;
  const task = input.marker.task.trim();
  const parts = [
    renderPlanMarker(input.marker),
    "### 📋 Plan",
    task ? `For @${input.marker.by}'s request:\n\n${blockquote(quiet(clip(task, 1_000)))}` : "",
  ];
  if ("plan" in read) {
    const { plan } = read;
    if (plan.summary) parts.push(quiet(clip(plan.summary, 4_000)));
    parts.push(
      section(
        "Files to change",
        plan.files.map(
          (f) => `- [ ] ${inlineCode(f.path, 200)}${f.change ? `: ${item(f.change)}` : ""}`,
        ),
        "_The plan names no file._",
      ),
      section(
        "Approach",
        plan.approach.map((step, i) => `${i + 1}. ${item(step)}`),
      ),
      section(
        "Tests to add or run",
        plan.tests.map((t) => `- [ ] ${item(t)}`),
      ),
      section(
        "Risks",
        plan.risks.map((r) => `- ${item(r)}`),
      ),
      `Complexity, as the model judged it: **${plan.complexity}**.`,
    );
  } else {
    parts.push(
      quiet(clip(read.text, 12_000)) || "_The model gave no plan._",
      `_The plan's list of files could not be read (${read.problem}): it is shown as the model wrote it._`,
    );
  }
  parts.push(END_MARKER, `**Estimated cost**\n\n${input.estimate}`, nextSteps(input.triggerPhrase));
  return parts.filter(Boolean).join("\n\n");
}

function section(title: string, lines: string[], empty?: string): string {
  if (lines.length === 0) return empty ? `**${title}**\n\n${empty}` : "";
  return `**${title}**\n\n${lines.join("\n")}`;
}

function nextSteps(phrase: string): string {
  const go = inlineCode(`${phrase} go`);
  const goBut = inlineCode(`${phrase} go, but …`);
  return [
    "**To go ahead**",
    "",
    `A person with write access replies ${go} and the change is made as planned, or ${goBut} with changes to the plan. Edits to this comment's plan count too.`,
    "With the patchwright App, a 👍 on this comment from a person with write access does the same (for 24 hours). Nothing is changed until then.",
  ].join("\n");
}

/**
 * The plan's words in a comment as it is now: between the marker and the
 * end marker, without HTML comments. A comment cut short keeps its words
 * up to the end.
 */
export function planTextOf(body: string): string {
  const found = MARKER_LINE.exec(body);
  const start = found ? found.index + found[0].length : 0;
  const end = body.indexOf(END_MARKER, start);
  return body
    .slice(start, end === -1 ? undefined : end)
    .replace(/<!--[\s\S]*?-->/g, "")
    .trim();
}

/**
 * The plan comment once a go took it: its marker says who and where, and a
 * line under the plan says so to the reader.
 */
export function withWent(body: string, went: NonNullable<PlanMarker["went"]>): string {
  const found = MARKER_LINE.exec(body);
  const marker = readPlanMarker(body);
  if (!found || !marker) return body;
  const updated = body.replace(found[0], renderPlanMarker({ ...marker, went }));
  const where = went.url ? `: [the work](${went.url})` : "";
  const line = `▶️ @${went.by} said go${where}.`;
  const end = updated.indexOf(END_MARKER);
  if (end === -1) return `${updated}\n\n${line}`;
  const after = end + END_MARKER.length;
  return `${updated.slice(0, after)}\n\n${line}${updated.slice(after)}`;
}

/** Where a result differs from its plan: planned files left alone, and files changed unplanned. */
export function planDifference(
  planned: readonly string[],
  changed: readonly string[],
): { notChanged: string[]; unplanned: string[] } {
  const want = new Set(planned.map(normalPath));
  const got = new Set(changed.map(normalPath));
  return {
    notChanged: [...want].filter((path) => !got.has(path)),
    unplanned: [...got].filter((path) => !want.has(path)),
  };
}

export interface GoInstructionInput {
  /** The task the plan was made for (sanitized), and who asked for it. */
  task: string;
  by: string;
  /** The plan's words (sanitized), and where they are. */
  plan: string;
  planUrl?: string | undefined;
  /** The go's own words after "go" (sanitized): they win over the plan. */
  changes: string;
  goBy?: string | undefined;
}

/** The instruction of a change that carries out a plan: the task, the plan, and the changes to it. */
export function goInstruction(input: GoInstructionInput): string {
  const where = input.planUrl ? ` (${input.planUrl})` : "";
  return [
    "Carry out the plan below: make the change it describes, with its tests. The plan was made for the task below by an earlier read-only run that read the code. Follow it; where you find it wrong or incomplete, do what the task needs instead, and say in your answer where and why you left the plan.",
    `The task, from @${input.by}:`,
    input.task.trim() || "(the request in this thread: the issue or pull request above)",
    `The plan${where}:`,
    input.plan.trim() || "(empty)",
    ...(input.changes.trim()
      ? [
          `Changes to the plan from @${input.goBy ?? "the person who said go"}, which win over the plan where they differ:`,
          input.changes.trim(),
        ]
      : []),
  ].join("\n\n");
}
