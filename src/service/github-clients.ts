import Bottleneck from "bottleneck";
import {
  type AppClientLog,
  createGitHubAppClients,
  type GitHubAppClients,
} from "../github/client.js";
import type { ServiceSettings } from "./env.js";

/**
 * The GitHub App's clients for a server process. With Redis, the spacing of
 * writes per installation lives there too, so the App and every worker
 * share one clock per installation, as GitHub asks. ioredis loads only then
 * (open-queue.ts says why).
 */
export async function serviceGitHubClients(
  settings: Pick<ServiceSettings, "appId" | "privateKey" | "apiBaseUrl" | "redisUrl">,
  log: AppClientLog,
): Promise<{ clients: GitHubAppClients; close(): Promise<void> }> {
  const redis = settings.redisUrl
    ? new (await import("ioredis")).Redis(settings.redisUrl)
    : undefined;
  const connection = redis ? new Bottleneck.IORedisConnection({ client: redis }) : undefined;
  const clients = createGitHubAppClients({
    appId: settings.appId ?? "",
    privateKey: settings.privateKey ?? "",
    baseUrl: settings.apiBaseUrl,
    log,
    ...(connection ? { sharedLimits: connection } : {}),
  });
  return {
    clients,
    // Bottleneck opens a subscriber connection of its own beside the client.
    close: async () => {
      await connection?.disconnect(false);
      redis?.disconnect();
    },
  };
}
