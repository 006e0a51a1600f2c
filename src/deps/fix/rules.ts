/**
 * The rule that makes a dependency fix different from a bug fix: fix the
 * code forward, never undo the bump. In a file of its own so that a thread's
 * plan (thread/kinds/dependency-pr.ts) names it without loading the
 * registry code behind the rest of deps/fix.
 */
export const DEPS_FIX_RULES = [
  "This is a dependency update. The version bumps are the point of the change:",
  "- Never revert, downgrade or pin back a bumped package, never edit the lockfile by hand and never remove a bumped dependency.",
  "- Fix the repository's own code, types, config or tests so they work with the new versions (new APIs, renamed exports, changed defaults).",
  "- You may add a missing dependency (for example a types package the new version no longer bundles) in package.json.",
  "- Never approve a dependency's install script (npm's allowScripts, pnpm's allowBuilds or onlyBuiltDependencies, bun's trustedDependencies): that is the maintainer's review. If the failure is an install script the project's settings skip or refuse, change nothing and name the package in your final answer.",
  "- Never let a package past the project's release-age gate or trust policy, and never lower or remove one (pnpm's minimumReleaseAge, minimumReleaseAgeExclude, trustPolicy and trustPolicyExclude; yarn's npmMinimalAgeGate and npmPreapprovedPackages; bun's minimumReleaseAge and minimumReleaseAgeExcludes; npm's min-release-age): they hold back releases too young to trust or published without the package's usual trusted publisher. If one refuses a package, change nothing and name the package and the setting in your final answer.",
  "- Do not weaken or delete tests to make them pass; if a test asserts behaviour the new version changed on purpose, update it and say why.",
  "- If the break cannot be fixed from this repository, change nothing and explain why in your final answer.",
].join("\n");
