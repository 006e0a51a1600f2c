import { type RemoteQueryOptions, remoteQueryGit } from "./remote-query.js";

const DEFAULT_MAX_LENGTH = 60;
const MAX_SUFFIX = 100;

/** Lowercase ASCII words joined by single dashes, cut at a word boundary when possible. */
export function slugify(text: string, maxLength = 40): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (slug.length <= maxLength) return slug;
  const cut = slug.slice(0, maxLength);
  const lastDash = cut.lastIndexOf("-");
  // Prefer ending on a whole word, unless that throws most of the budget away.
  const trimmed =
    slug[maxLength] !== "-" && lastDash > maxLength / 2 ? cut.slice(0, lastDash) : cut;
  return trimmed.replace(/-+$/, "");
}

/**
 * The rules of `git check-ref-format --branch`, so names are checked before
 * they reach any git command (a name starting with "-" would be an option).
 */
export function isValidBranchName(name: string): boolean {
  if (name.length === 0 || name === "HEAD" || name === "@") return false;
  if (name.startsWith("-") || name.startsWith("/") || name.endsWith("/")) return false;
  if (name.endsWith(".") || name.includes("..") || name.includes("//") || name.includes("@{")) {
    return false;
  }
  // Control characters, space and the characters git reserves for revision syntax.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is banned
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false;
  return name.split("/").every((part) => !part.startsWith(".") && !part.endsWith(".lock"));
}

export interface BranchNameOptions {
  prefix?: string;
  issueNumber?: number;
  title: string;
  /** Whether a name is already taken (on the remote); see `listRemoteBranches`. */
  existing?: (name: string) => Promise<boolean>;
  maxLength?: number;
}

/** `agent/issue-12-fix-the-parser`, or `...-2`, `...-3` when taken. */
export async function branchName(options: BranchNameOptions): Promise<string> {
  const prefix = options.prefix ?? "agent/";
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  if (prefix !== "" && !isValidBranchName(`${prefix}x`)) {
    throw new Error(`branch prefix "${prefix}" is not valid in a git branch name`);
  }
  const stem = options.issueNumber === undefined ? "" : `issue-${options.issueNumber}`;
  const build = (suffix: string): string => {
    const budget = maxLength - prefix.length - suffix.length - (stem ? stem.length + 1 : 0);
    if (budget < 1 && !stem) throw new Error(`branch prefix "${prefix}" leaves no room for a name`);
    const slug = slugify(options.title, Math.max(budget, 0));
    const body = [stem, slug].filter(Boolean).join("-") || "task";
    return `${prefix}${body}${suffix}`;
  };
  for (let n = 1; n <= MAX_SUFFIX; n++) {
    const name = build(n === 1 ? "" : `-${n}`);
    if (!options.existing || !(await options.existing(name))) return name;
  }
  throw new Error(`no free branch name for "${build("")}" after ${MAX_SUFFIX} tries`);
}

export type ListRemoteBranchesOptions = RemoteQueryOptions;

/** Branch names on the remote (`git ls-remote --heads`), for `branchName({ existing })`. */
export async function listRemoteBranches(options: ListRemoteBranchesOptions): Promise<Set<string>> {
  const { git, url } = remoteQueryGit(options);
  const out = await git.raw(["ls-remote", "--heads", "--", url]);
  const names = new Set<string>();
  for (const line of out.split("\n")) {
    const ref = line.split("\t")[1];
    if (ref?.startsWith("refs/heads/")) names.add(ref.slice("refs/heads/".length));
  }
  return names;
}
