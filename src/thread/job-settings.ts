import type { ModelSettings } from "../agent/model/factory.js";
import type { Model } from "../agent/model/model.js";
import type { ChangeInput } from "../change/change.js";
import type { RepoConfig } from "../config/schema.js";
import type { CoAuthor } from "../git/commit/commit-message.js";
import type { Person } from "../requests/request.js";

/** The part of a git job the repository's config decides, the same for every kind of job. */
export function jobSettingsFrom(
  config: RepoConfig,
  createModel: (modelId: string, settings?: ModelSettings) => Model,
): Pick<
  ChangeInput,
  | "branchPrefix"
  | "model"
  | "policy"
  | "limits"
  | "setup"
  | "verify"
  | "verifyTimeoutSeconds"
  | "network"
  | "setupNetwork"
  | "squash"
  | "identity"
  | "mcpServers"
> {
  return {
    branchPrefix: config.branchPrefix,
    model: createModel(config.model, { pricing: config.pricing }),
    policy: config.policy,
    limits: {
      maxTurns: config.maxTurns,
      maxCostUsd: config.maxCostUsd,
      maxDurationMs: config.maxMinutes * 60_000,
    },
    setup: config.setup,
    verify: config.verify,
    verifyTimeoutSeconds: config.verifyTimeoutSeconds,
    network: config.network,
    setupNetwork: config.setupNetwork,
    squash: config.squash,
    identity: config.bot,
    mcpServers: config.mcpServers,
  };
}

/** The requester as a Co-authored-by trailer; bots get none, the commit author already is one. */
export function coAuthorOf(person: Person | undefined): CoAuthor | undefined {
  if (!person || person.type === "Bot") return undefined;
  return { name: person.name ?? person.login, login: person.login, id: person.id };
}
