import { createModelFactory, ModelSetupError } from "../agent/model/factory.js";
import type { Model } from "../agent/model/model.js";
import { parseModelSpec } from "../agent/model/model-spec.js";
import type { RepoConfig } from "../config/schema.js";
import type { CliIo } from "./cli-io.js";
import { UsageError } from "./usage-error.js";

/**
 * The model a CLI command runs, from provider/id: a missing key or region is
 * a usage error (exit 2) naming the variable to set, raised before any work.
 */
export function buildCliModel(io: CliIo, modelSpec: string, pricing: RepoConfig["pricing"]): Model {
  const spec = parseModelSpec(modelSpec);
  if (spec.provider === "anthropic") {
    const apiKey = io.env.ANTHROPIC_API_KEY;
    if (!apiKey) {
      throw new UsageError(
        "ANTHROPIC_API_KEY is not set: export your Anthropic API key and run again",
      );
    }
    if (io.createModel) {
      const baseURL = io.env.ANTHROPIC_BASE_URL;
      return io.createModel({ apiKey, model: spec.id, ...(baseURL ? { baseURL } : {}) });
    }
  }
  try {
    return createModelFactory(io.env)(modelSpec, { pricing });
  } catch (error) {
    if (error instanceof ModelSetupError) throw new UsageError(error.message);
    throw error;
  }
}
