import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import {
  type AppClientLog,
  createGitHubAppClients,
  type GitHubAppClients,
} from "../github/client.js";
import type { ServiceSettings } from "./env.js";

/**
 * The GitHub App's clients for a server process. With Redis, the spacing of
 * writes per installation lives there too, so the App and every worker
 * share one clock per installation, as GitHub asks.
 */
export function serviceGitHubClients(
  settings: Pick<ServiceSettings, "appId" | "privateKey" | "apiBaseUrl" | "redisUrl">,
  log: AppClientLog,
): { clients: GitHubAppClients; close(): Promise<void> } {
  const redis = settings.redisUrl ? new Redis(settings.redisUrl) : undefined;
  const clients = createGitHubAppClients({
    appId: settings.appId ?? "",
    privateKey: settings.privateKey ?? "",
    baseUrl: settings.apiBaseUrl,
    log,
    ...(redis ? { sharedLimits: new Bottleneck.IORedisConnection({ client: redis }) } : {}),
  });
  return {
    clients,
    close: async () => {
      redis?.disconnect();
    },
  };
}
