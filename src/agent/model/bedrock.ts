import { createMessagesModel, type ModelTuning } from "./anthropic.js";
import type { Model } from "./model.js";
import type { ProviderHints } from "./retry.js";

export interface BedrockModelOptions extends ModelTuning {
  /** Bedrock's model or inference profile id, e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0. */
  model: string;
  /** AWS_REGION (or AWS_DEFAULT_REGION). */
  region: string;
  /** ANTHROPIC_BEDROCK_BASE_URL: a VPC endpoint, a gateway, or a test server. */
  baseURL?: string | undefined;
  /** AWS_ACCESS_KEY_ID and friends; absent: the AWS SDK's default chain (profile, SSO, instance role). */
  credentials?:
    | { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined }
    | undefined;
  /** AWS_BEARER_TOKEN_BEDROCK: a Bedrock API key, used instead of signing. */
  bearerToken?: string | undefined;
}

export const BEDROCK_HINTS: ProviderHints = {
  api: "Amazon Bedrock",
  auth: "check the AWS credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE / the instance role), AWS_REGION and the model's access in the Bedrock console",
  baseUrlVar: "ANTHROPIC_BEDROCK_BASE_URL",
};

/**
 * Claude on Amazon Bedrock through Anthropic's Bedrock SDK: the Messages API
 * with SigV4 signing, so streaming, tool-input deltas, prompt caching and
 * usage are the same as on Anthropic's API. The only importer of that SDK.
 */
export function createBedrockModel(options: BedrockModelOptions): Model {
  const { region, baseURL, credentials, bearerToken, fetch: customFetch, ...tuning } = options;
  const model = createMessagesModel({
    ...tuning,
    hints: BEDROCK_HINTS,
    globalFetch: !customFetch,
    secrets: [credentials?.secretAccessKey, credentials?.sessionToken, bearerToken].filter(
      (secret): secret is string => secret !== undefined,
    ),
    newClient: async () => {
      const { default: AnthropicBedrock } = await import("@anthropic-ai/bedrock-sdk");
      const common = {
        awsRegion: region,
        // Every value explicit: the SDK would otherwise read them from the process environment.
        baseURL: baseURL ?? `https://bedrock-runtime.${region}.amazonaws.com`,
        apiKey: bearerToken ?? null,
        maxRetries: 0,
        logLevel: "warn" as const,
        ...(customFetch ? { fetch: customFetch } : {}),
      };
      return credentials
        ? new AnthropicBedrock({
            ...common,
            awsAccessKey: credentials.accessKeyId,
            awsSecretKey: credentials.secretAccessKey,
            awsSessionToken: credentials.sessionToken ?? null,
          })
        : new AnthropicBedrock(common);
    },
  });
  return { ...model, spec: `bedrock/${options.model}` };
}
