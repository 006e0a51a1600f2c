import { createMessagesModel, type ModelTuning } from "./anthropic.js";
import type { Model } from "./model.js";
import type { ProviderHints } from "./retry.js";

export interface VertexModelOptions extends ModelTuning {
  /** Vertex's model id, e.g. claude-sonnet-4-5@20250929. */
  model: string;
  /** CLOUD_ML_REGION, e.g. us-east5 or global. */
  region: string;
  /** ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT). */
  projectId: string;
  /** ANTHROPIC_VERTEX_BASE_URL: a private endpoint or a test server. */
  baseURL?: string | undefined;
}

export const VERTEX_HINTS: ProviderHints = {
  api: "Google Vertex AI",
  auth: "check the Google credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, or the workload's service account), ANTHROPIC_VERTEX_PROJECT_ID and CLOUD_ML_REGION",
  baseUrlVar: "ANTHROPIC_VERTEX_BASE_URL",
};

/** The scope Anthropic's Vertex SDK asks for itself. */
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

/**
 * Claude on Google Vertex AI through Anthropic's Vertex SDK: the Messages
 * API with Google OAuth from Application Default Credentials, so streaming,
 * tool-input deltas, prompt caching and usage are the same as on Anthropic's
 * API. The only importer of that SDK.
 */
export function createVertexModel(options: VertexModelOptions): Model {
  const { region, projectId, baseURL, fetch: customFetch, ...tuning } = options;
  const model = createMessagesModel({
    ...tuning,
    hints: VERTEX_HINTS,
    globalFetch: !customFetch,
    secrets: [],
    newClient: async () => {
      const [{ default: AnthropicVertex }, { GoogleAuth }] = await Promise.all([
        import("@anthropic-ai/vertex-sdk"),
        import("google-auth-library"),
      ]);
      return new AnthropicVertex({
        region,
        projectId,
        // The SDK's own GoogleAuth does not know the project, and looks it up
        // before the first token: it runs `gcloud config config-helper`
        // (a second of Python where the CLI is installed, as on GitHub's
        // runners) and else asks the GCE metadata server. The project is
        // configured, so nothing need be looked up.
        googleAuth: new GoogleAuth({ scopes: CLOUD_PLATFORM, projectId }),
        ...(baseURL ? { baseURL } : {}),
        maxRetries: 0,
        logLevel: "warn",
        ...(customFetch ? { fetch: customFetch } : {}),
      });
    },
  });
  return { ...model, spec: `vertex/${options.model}` };
}
