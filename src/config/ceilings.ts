import picomatch from "picomatch";
import { parseModelSpec } from "../agent/model/model-spec.js";
import type { NetworkPolicy, NetworkSetting } from "../sandbox/network.js";
import type { RepoConfig } from "./schema.js";

/**
 * What whoever runs patchwright (the App's operator, or the workflow that
 * runs the Action) allows any repository at most. A repository's
 * `.github/patchwright.yml` chooses within these and never beyond: a value
 * above a ceiling is lowered to it, and the job's report says so ("capped
 * at $5 by the operator").
 */

export const NETWORK_LEVELS = ["off", "hosts", "public", "on"] as const;
export type NetworkCeiling = (typeof NETWORK_LEVELS)[number];

export interface OperatorCeilings {
  /** USD per job: `max_cost_usd` (or the Action's input) and `max_cost_per_request_usd` above it are lowered to it. */
  maxCostUsd?: number | undefined;
  /**
   * Globs over model names (`claude-sonnet-*`, `openai/*`); the first is a
   * model id, the one a repository gets when it names a model not matched.
   */
  models?: readonly string[] | undefined;
  /** Whether a repository's `pricing:` is used (prices decide what a cost cap counts). */
  pricingFromRepos: boolean;
  /** The most network `network`, `setup_network` and an MCP server's `network` may have. */
  maxNetwork: NetworkCeiling;
  /** Whether a repository's `mcp_servers:` are started at all. */
  repoMcp: boolean;
}

const RANK: Record<NetworkCeiling, number> = { off: 0, hosts: 1, public: 2, on: 3 };

function levelOf(policy: NetworkPolicy): NetworkCeiling {
  if (policy.kind !== "hosts") return policy.kind;
  return policy.anyPublic ? "public" : "hosts";
}

function describeNetwork(policy: NetworkPolicy): string {
  if (policy.kind !== "hosts") return policy.kind;
  const names = policy.hosts.map((rule) => `${rule.wildcard ? "*." : ""}${rule.host}`);
  if (policy.anyPublic) return names.length ? `public and ${names.join(", ")}` : "public";
  return `hosts ${names.join(", ")}`;
}

/** The policy as the ceiling allows it: named hosts survive a "hosts" ceiling, nothing else does. */
export function capNetwork(policy: NetworkPolicy, ceiling: NetworkCeiling): NetworkPolicy {
  if (RANK[levelOf(policy)] <= RANK[ceiling]) return policy;
  if (ceiling === "public") return { kind: "hosts", hosts: [], anyPublic: true };
  if (ceiling === "hosts" && policy.kind === "hosts" && policy.hosts.length > 0) {
    return { kind: "hosts", hosts: policy.hosts };
  }
  return { kind: "off" };
}

/** The same for a setting as written (an MCP server's `network:`). */
function capNetworkSetting(setting: NetworkSetting, ceiling: NetworkCeiling): NetworkSetting {
  if (ceiling === "on") return setting;
  if (setting === false || setting === "off") return "off";
  if (setting === true || setting === "on" || setting === "public") {
    return ceiling === "public" ? "public" : "off";
  }
  if (ceiling === "public") return setting;
  const named = setting.filter((host) => host !== "*");
  return ceiling === "hosts" && named.length > 0 ? named : "off";
}

/** Whether `model` (as the config writes it) matches one of the operator's globs. */
export function modelAllowed(model: string, globs: readonly string[]): boolean {
  let forms = [model];
  try {
    const spec = parseModelSpec(model);
    forms = [
      model,
      `${spec.provider}/${spec.id}`,
      ...(spec.provider === "anthropic" ? [spec.id] : []),
    ];
  } catch {
    // A model the schema refused never gets here; matched as written if it does.
  }
  return globs.some((glob) => {
    const matches = picomatch(glob, { dot: true });
    return forms.some((form) => matches(form));
  });
}

function dollars(amount: number): string {
  return `$${Number.isInteger(amount) ? amount : amount.toFixed(2)}`;
}

/**
 * The config within the ceilings, with a line for each setting that was
 * lowered (`capped`), for the job's report. Settings within them are left
 * exactly as they were.
 */
export function applyCeilings(config: RepoConfig, ceilings: OperatorCeilings): RepoConfig {
  const capped: string[] = [...(config.capped ?? [])];
  const out: RepoConfig = { ...config };
  if (ceilings.maxCostUsd !== undefined && config.maxCostUsd > ceilings.maxCostUsd) {
    out.maxCostUsd = ceilings.maxCostUsd;
    capped.push(
      `max_cost_usd: capped at ${dollars(ceilings.maxCostUsd)} by the operator (the repository asked for ${dollars(config.maxCostUsd)})`,
    );
  }
  const perRequest = config.maxCostPerRequestUsd;
  if (
    ceilings.maxCostUsd !== undefined &&
    perRequest !== undefined &&
    perRequest > ceilings.maxCostUsd
  ) {
    // A budget named in a request stays within the operator's ceiling too.
    out.maxCostPerRequestUsd = ceilings.maxCostUsd;
    capped.push(
      `max_cost_per_request_usd: capped at ${dollars(ceilings.maxCostUsd)} by the operator (the repository asked for ${dollars(perRequest)})`,
    );
  }
  const [fallback] = ceilings.models ?? [];
  if (ceilings.models && fallback !== undefined && !modelAllowed(config.model, ceilings.models)) {
    out.model = fallback;
    capped.push(
      `model: capped at ${fallback} by the operator (the repository asked for ${config.model}, which is not among the models the operator allows)`,
    );
  }
  if (!ceilings.pricingFromRepos && config.pricing !== undefined) {
    delete out.pricing;
    capped.push(
      "pricing: ignored by the operator (prices come from the built-in table only); a model without a known price does not start under a cost limit",
    );
  }
  for (const key of ["network", "setupNetwork"] as const) {
    const policy = capNetwork(config[key], ceilings.maxNetwork);
    if (policy === config[key]) continue;
    out[key] = policy;
    const name = key === "network" ? "network" : "setup_network";
    capped.push(
      `${name}: capped at ${describeNetwork(policy)} by the operator (the repository asked for ${describeNetwork(config[key])})`,
    );
  }
  const mcp = capMcp(config, ceilings);
  if (mcp.servers) out.mcpServers = mcp.servers;
  else delete out.mcpServers;
  capped.push(...mcp.capped);
  if (capped.length > 0) out.capped = capped;
  return out;
}

function capMcp(
  config: RepoConfig,
  ceilings: OperatorCeilings,
): { servers: RepoConfig["mcpServers"]; capped: string[] } {
  const servers = config.mcpServers;
  if (!servers || Object.keys(servers).length === 0) return { servers, capped: [] };
  if (!ceilings.repoMcp) {
    return {
      servers: undefined,
      capped: [
        `mcp_servers: not started (${Object.keys(servers).join(", ")}); the operator does not allow repository MCP servers`,
      ],
    };
  }
  const capped: string[] = [];
  const kept: NonNullable<RepoConfig["mcpServers"]> = {};
  for (const [name, server] of Object.entries(servers)) {
    if (!("command" in server)) {
      // Reached from the host: a network of the repository's choosing, whatever the sandbox's.
      if (ceilings.maxNetwork === "off") {
        capped.push(`mcp_servers.${name}: not started; the operator allows no network (off)`);
      } else kept[name] = server;
      continue;
    }
    const network = capNetworkSetting(server.network, ceilings.maxNetwork);
    if (JSON.stringify(network) !== JSON.stringify(server.network)) {
      capped.push(
        `mcp_servers.${name}.network: capped at ${JSON.stringify(network)} by the operator (the repository asked for ${JSON.stringify(server.network)})`,
      );
    }
    kept[name] = { ...server, network };
  }
  return { servers: Object.keys(kept).length > 0 ? kept : undefined, capped };
}
