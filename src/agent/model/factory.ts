import { createAnthropicModel, type ModelTuning } from "./anthropic.js";
import { createBedrockModel } from "./bedrock.js";
import type { Model, ModelPrice } from "./model.js";
import { type ModelSpec, parseModelSpec } from "./model-spec.js";
import { createOpenAiModel } from "./openai.js";
import { type PriceSetting, resolvePrice } from "./pricing.js";
import { createVertexModel } from "./vertex.js";

/** What a repository's config adds to a model: prices and windows the tables do not know. */
export interface ModelSettings {
  /** `pricing:` from the config, keyed by the model as written ("openai/my-model"). */
  pricing?: Readonly<Record<string, PriceSetting>> | undefined;
}

/** `(model, settings) => Model`, as entry points pass it to jobs. */
export type ModelFactory = (model: string, settings?: ModelSettings) => Model;

/** Thrown when a provider's credentials or settings are missing; says which variables to set. */
export class ModelSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelSetupError";
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** The variables each provider reads, so entry points can pass exactly these through. */
export const PROVIDER_ENV_NAMES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_PROFILE",
  "AWS_BEARER_TOKEN_BEDROCK",
  "ANTHROPIC_BEDROCK_BASE_URL",
  "CLOUD_ML_REGION",
  "ANTHROPIC_VERTEX_PROJECT_ID",
  "GOOGLE_CLOUD_PROJECT",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "ANTHROPIC_VERTEX_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
] as const;

const nonEmpty = (value: string | undefined) => (value ? value : undefined);

/** The provider variables that hold credentials (AWS_BEARER_TOKEN_BEDROCK's name hides it from name-based scans). */
export const PROVIDER_CREDENTIAL_NAMES = [
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
] as const;

/** Every provider credential in `env`, for redactors: none may be shown anywhere. */
export function providerSecrets(env: Env): string[] {
  return PROVIDER_CREDENTIAL_NAMES.flatMap((name) => {
    const value = env[name];
    return value && value.length >= 8 ? [value] : [];
  });
}

/**
 * Builds models from `provider/id` strings with credentials from `env` (the
 * entry point's parsed environment). Each provider asks only for its own
 * variables: a run on Bedrock never needs ANTHROPIC_API_KEY.
 */
export function createModelFactory(
  env: Env,
  options: Pick<ModelTuning, "sleep" | "random" | "maxRetries" | "baseDelayMs" | "maxDelayMs"> & {
    /** What to say when an Anthropic model has no key (the Action names its input). */
    missingAnthropicKey?: string;
    /** The fetch Anthropic's own API is sent with (the Action's: no undici); default the global one. */
    anthropicFetch?: ModelTuning["fetch"];
  } = {},
): ModelFactory {
  const { missingAnthropicKey, anthropicFetch, ...tuning } = options;
  return (model, settings = {}) => {
    const spec = parseModelSpec(model);
    if (spec.provider === "anthropic" && !nonEmpty(env.ANTHROPIC_API_KEY) && missingAnthropicKey) {
      throw new ModelSetupError(missingAnthropicKey);
    }
    const { price, contextWindow } = resolvePrice(spec, settings.pricing);
    const tuned = { ...tuning, ...(price ? { price } : {}), contextWindow };
    const withFetch = spec.provider === "anthropic" && anthropicFetch;
    return build(spec, env, withFetch ? { ...tuned, fetch: anthropicFetch } : tuned, price);
  };
}

/** Whether `env` sets up a provider other than Anthropic's API (so no Anthropic key is needed up front). */
export function otherProviderConfigured(env: Env): boolean {
  return [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "CLOUD_ML_REGION",
  ].some((name) => nonEmpty(env[name]) !== undefined);
}

type Tuned = ModelTuning & { contextWindow: number };

function build(spec: ModelSpec, env: Env, tuned: Tuned, price: ModelPrice | null): Model {
  switch (spec.provider) {
    case "anthropic": {
      const apiKey = nonEmpty(env.ANTHROPIC_API_KEY);
      if (!apiKey) {
        throw new ModelSetupError(
          `ANTHROPIC_API_KEY is not set: export your Anthropic API key for model "${spec.id}", or name another provider (bedrock/, vertex/, openai/)`,
        );
      }
      const baseURL = nonEmpty(env.ANTHROPIC_BASE_URL);
      return createAnthropicModel({
        apiKey,
        model: spec.id,
        ...(baseURL ? { baseURL } : {}),
        ...tuned,
      });
    }
    case "bedrock": {
      const region = nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION);
      if (!region) {
        throw new ModelSetupError(
          `AWS_REGION is not set: Bedrock model "${spec.id}" needs the AWS region it runs in, e.g. AWS_REGION=us-east-1`,
        );
      }
      const accessKeyId = nonEmpty(env.AWS_ACCESS_KEY_ID);
      const secretAccessKey = nonEmpty(env.AWS_SECRET_ACCESS_KEY);
      return pricedOrNull(
        createBedrockModel({
          model: spec.id,
          region,
          baseURL: nonEmpty(env.ANTHROPIC_BEDROCK_BASE_URL),
          credentials:
            accessKeyId && secretAccessKey
              ? { accessKeyId, secretAccessKey, sessionToken: nonEmpty(env.AWS_SESSION_TOKEN) }
              : undefined,
          bearerToken: nonEmpty(env.AWS_BEARER_TOKEN_BEDROCK),
          ...tuned,
        }),
        price,
      );
    }
    case "vertex": {
      const region = nonEmpty(env.CLOUD_ML_REGION);
      const projectId =
        nonEmpty(env.ANTHROPIC_VERTEX_PROJECT_ID) ?? nonEmpty(env.GOOGLE_CLOUD_PROJECT);
      if (!region || !projectId) {
        throw new ModelSetupError(
          `${region ? "ANTHROPIC_VERTEX_PROJECT_ID" : "CLOUD_ML_REGION"} is not set: Vertex model "${spec.id}" needs CLOUD_ML_REGION (e.g. us-east5) and ANTHROPIC_VERTEX_PROJECT_ID; credentials come from Application Default Credentials`,
        );
      }
      return pricedOrNull(
        createVertexModel({
          model: spec.id,
          region,
          projectId,
          baseURL: nonEmpty(env.ANTHROPIC_VERTEX_BASE_URL),
          ...tuned,
        }),
        price,
      );
    }
    case "openai": {
      const apiKey = nonEmpty(env.OPENAI_API_KEY);
      const baseURL = nonEmpty(env.OPENAI_BASE_URL);
      if (!apiKey && !baseURL) {
        throw new ModelSetupError(
          `OPENAI_API_KEY is not set: export your OpenAI API key for model "${spec.id}", or point OPENAI_BASE_URL at a compatible server (vLLM, llama.cpp, Ollama)`,
        );
      }
      return createOpenAiModel({
        apiKey,
        baseURL,
        model: spec.id,
        ...tuned,
        price,
      });
    }
  }
}

/** Bedrock and Vertex serve only Claude, but an id the table cannot read must not be priced as a guess. */
function pricedOrNull(model: Model, price: ModelPrice | null): Model {
  return price ? model : { ...model, price: null };
}
