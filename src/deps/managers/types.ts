import type { ReleaseSwap } from "../update.js";

/**
 * What the bump job needs to know about a package manager, as one
 * interface each tool implements in its own folder (npm/, pnpm/, yarn/,
 * bun/), like Renovate's `ManagerApi`: how a project shows it uses the
 * tool, how to read its lockfile, the commands that lock, install and
 * test, and how it moves a version inside a range. index.ts lists them and
 * detects a project's; nothing outside managers/ asks which tool it is.
 */

export type ManagerName = "npm" | "pnpm" | "yarn-classic" | "yarn-berry" | "bun";

/** The package manager a project uses, as detection found it (data: plans and tests hold it). */
export interface DetectedManager {
  name: ManagerName;
  /** The lockfile path, when there is one. */
  lockfile: string | undefined;
  /** What told us: `package.json "packageManager"` or the lockfile's name. */
  evidence: string;
  /** `pnpm@10.34.8` as package.json pins it. */
  pinned?: string;
  /**
   * The tool's own release file the project keeps, from its root (yarn's
   * `yarnPath`): yarn runs it whatever starts yarn, so the job starts it
   * with Node directly and fetches nothing (corepack would download the
   * pinned release first, from repo.yarnpkg.com for yarn 2+).
   */
  release?: string;
  /**
   * Lockfiles of other tools beside its own (zustand keeps a package-lock.json
   * that stopped moving beside pnpm-lock.yaml): the job leaves them as they are.
   */
  others?: string[];
}

/** How to start each tool; a command prefix, run by the shell in the sandbox. npm comes with Node. */
export type ManagerTools = Partial<Record<Exclude<ManagerName, "npm">, string>>;

export interface PackageManager {
  name: ManagerName;
  /** The tool as a maintainer names it: "yarn" for yarn 1 and yarn 2+ alike. */
  label: string;
  /** The tool as package.json's `packageManager` field names it ("yarn" for both yarns). */
  tool: string;
  /** The lockfiles it writes, the one it prefers first. */
  lockfiles: readonly string[];
  /**
   * Whether the project is this manager's rather than another's with the
   * same `tool` or lockfile (yarn 1 or yarn 2+), from the pinned version
   * and the lockfile's text; true for a tool that has one flavour.
   */
  claims(evidence: { version?: string | undefined; lockText?: string | undefined }): boolean;
  /** Why a lockfile it writes cannot be used (bun's binary one), or undefined. */
  lockfileProblem?(lockfile: string): string | undefined;
  /** The installed versions its lockfile records; throws when the text cannot be read. */
  readLockfile(text: string): LockReader;
  /** The commands the bump job runs with it (how its launcher is found again is index.ts's). */
  commands(
    detected: DetectedManager,
    tools?: ManagerTools,
  ): Omit<ManagerCommands, "launchEnv" | "shims">;
  /**
   * How it moves a version inside a range the bump leaves as it is (see
   * relock.ts): undefined when its lockfile step is asked by command.
   */
  forgetLocked?(lockText: string, relock: readonly Relock[]): string;
  /** It locks a kept range only when the range is pinned at the plan's version for a first lockfile step (bun). */
  pinsKeptRanges: boolean;
  /**
   * It resolves a lockfile from an installed tree it finds, so the tree is
   * moved out of its sight while the lockfile is made (npm).
   */
  readsInstalledTree: boolean;
  /** What it does with a broken peer range, for the reason a bump is left out. */
  peerOutcome: string;
  /** How it is started when it does not come with Node, and what to do when it cannot be. */
  launcher?: { command: string; whenMissing: string };
  /** The registry package its release `version` is published as (for the `packageManager` field's update). */
  releasePackage(version: string): string;
  /**
   * What an update of the `packageManager` field to `to` needs besides the
   * field: a release file the project keeps replaced (`swap`), or why the
   * update is only listed (`held`: something else decides the version the
   * tool runs); undefined when the field is the whole edit.
   */
  releaseSwap?(
    dir: string,
    to: string,
  ): Promise<{ swap: ReleaseSwap } | { held: string } | undefined>;
  /** The release file the project keeps that runs in place of the tool (DetectedManager.release), if any. */
  releaseFile?(dir: string): Promise<string | undefined>;
}

export interface ManagerCommands {
  /**
   * Updates the lockfile for the edited manifests without running package
   * scripts, and moves `relock`'s in-range updates inside their ranges
   * (npm and yarn 1 get theirs dropped from the lockfile first, bun's are
   * pinned in package.json for this step and restored for a second; see relock.ts).
   */
  lockfile(before?: Date, relock?: readonly Relock[]): string;
  /** The first install of a job. */
  install: string;
  /** An install into a tree an earlier try or group left. */
  reinstall: string;
  /** `npm test`, `pnpm test`, `yarn test`, `bun run test`. */
  test: string;
  /**
   * The environment that points the tool at the registry patchwright
   * resolved; `env` is what the commands get otherwise (an operator's own
   * settings there win).
   */
  registryEnv(
    registry: string,
    env?: Readonly<Record<string, string | undefined>>,
  ): Record<string, string>;
  /** The environment that puts the tool's cache (or store) in `dir`. */
  cacheEnv(dir: string): Record<string, string>;
  /**
   * What a later command (verify, which has no network by default) needs
   * to start the tool the lockfile step fetched into `dir` (corepack's
   * home), not fetch it again; none for a tool started otherwise.
   */
  launchEnv(dir: string): Record<string, string>;
  /**
   * Commands a script calls by the tool's name (`pnpm lint` inside `pnpm
   * test`), each to run as patchwright runs the tool, for the checkout at
   * `root` (a release file by its full path: a script may run in a
   * workspace's folder): put first on the PATH of the tool's and verify's
   * commands, where a sandbox has no pnpm of its own (corepack's, a release
   * file's). None when the PATH's is it.
   */
  shims(root: string): Record<string, string>;
}

/** The version the lockfile resolved for a manifest's dependency. */
export type LockedVersionOf = (
  manifestDir: string,
  name: string,
  spec: string,
) => string | undefined;

/**
 * Whether the lockfile links a manifest's dependency to a workspace package
 * (true) or resolves it from a registry (false); undefined when it does not
 * say (yarn 1 never records workspace packages).
 */
export type LinkedOf = (manifestDir: string, name: string, spec: string) => boolean | undefined;

/** A package the lockfile holds, with the peers it declares. */
export interface LockedPeers {
  version: string;
  peers: Readonly<Record<string, string>>;
}

export interface LockReader {
  versionOf: LockedVersionOf;
  linkedOf: LinkedOf;
  /** Packages the lockfile records with their peers (npm's records them; the others' none). */
  peerDeclarers(): Map<string, LockedPeers>;
  /**
   * The packages the project does not name itself, for the transitive
   * advisories check; only a lockfile that records who asks for what (npm's) has it.
   */
  lockedGraph?(direct: ReadonlySet<string>): LockedGraph;
}

export interface LockedGraph {
  /** Installed versions of each package that the project does not name directly. */
  versions: Map<string, Set<string>>;
  /** Who asks for each package, and with which range: "parent@1.0.0 wants ^1.0.0". */
  wantedBy: Map<string, Array<{ parent: string; range: string }>>;
}

/** An in-range update: the lockfile moves, the ranges stay (relock.ts). */
export interface Relock {
  name: string;
  version: string;
  /** The folders of the manifests whose range stays ("" for the root). */
  dirs: string[];
  /** Those ranges, as the manifests write them. */
  specs: string[];
  /** Where each of them is declared. */
  locations: RelockLocation[];
}

export interface RelockLocation {
  manifest: string;
  section: string;
  spec: string;
  /** A catalog's entry (UpdateLocation.catalog): the range is there, not in a dependency section. */
  catalog?: string;
}
