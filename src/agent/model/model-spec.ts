/**
 * `model:` in the config and `--model` name a provider and that provider's
 * model id: `bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0`,
 * `vertex/claude-sonnet-4-5@20250929`, `openai/gpt-4.1`, `anthropic/claude-sonnet-4-6`.
 * A bare id is Anthropic's, as it always was.
 */

export const PROVIDERS = ["anthropic", "bedrock", "vertex", "openai"] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface ModelSpec {
  provider: Provider;
  /** The provider's own id, sent without the prefix. */
  id: string;
}

export class ModelSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelSpecError";
  }
}

function isProvider(name: string): name is Provider {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** Splits `provider/id`; throws ModelSpecError naming the providers for a prefix it does not know. */
export function parseModelSpec(text: string): ModelSpec {
  const value = text.trim();
  const slash = value.indexOf("/");
  if (slash < 0) {
    if (value === "")
      throw new ModelSpecError("the model is empty; give an id such as claude-sonnet-5-5");
    return { provider: "anthropic", id: value };
  }
  const provider = value.slice(0, slash);
  const id = value.slice(slash + 1);
  if (!isProvider(provider)) {
    throw new ModelSpecError(
      `model "${value}": unknown provider "${provider}"; write ${PROVIDERS.map((p) => `${p}/<id>`).join(", ")}, or a bare Anthropic model id`,
    );
  }
  if (id === "")
    throw new ModelSpecError(`model "${value}": the model id after "${provider}/" is empty`);
  return { provider, id };
}

/** The problem with a model string, or undefined (for schema validation). */
export function modelSpecProblem(text: string): string | undefined {
  try {
    parseModelSpec(text);
    return undefined;
  } catch (error) {
    if (error instanceof ModelSpecError) return error.message;
    throw error;
  }
}
