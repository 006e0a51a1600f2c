import { dirname } from "node:path";
import * as core from "@actions/core";

/**
 * What the Action asks of the runner: inputs in, outputs, masks, log lines
 * and the step summary out. main() takes it as a parameter, so the flow can
 * be driven without a runner; the default speaks the runner's protocol
 * through @actions/core.
 */
export interface ActionsIo {
  /** The input's value, trimmed; "" when it was not given. */
  getInput(name: string): string;
  setOutput(name: string, value: string): void;
  /** Masks the value in the log from now on. */
  setSecret(value: string): void;
  /** Logs an error and makes the step fail. */
  setFailed(message: string): void;
  info(message: string): void;
  warning(message: string): void;
  /** Appends markdown to the step's summary page. */
  appendSummary(markdown: string): Promise<void>;
  /**
   * Attaches a file to the workflow run as an artifact; its id, or undefined
   * where the run has no artifact service (a local try-out, an old runner).
   */
  uploadArtifact(name: string, path: string): Promise<number | undefined>;
}

export function createActionsIo(env: Record<string, string | undefined>): ActionsIo {
  return {
    getInput: (name) => core.getInput(name),
    setOutput: (name, value) => core.setOutput(name, value),
    setSecret: (value) => {
      // The runner masks line by line: a PEM key is masked whole only if every line is.
      for (const line of value.split(/\r?\n/)) if (line.trim()) core.setSecret(line.trim());
    },
    setFailed: (message) => core.setFailed(message),
    info: (message) => core.info(message),
    warning: (message) => core.warning(message),
    appendSummary: async (markdown) => {
      // Outside a runner (a local try-out) there is no summary file; the log has it all.
      if (!env.GITHUB_STEP_SUMMARY) return;
      await core.summary.addRaw(markdown, true).write();
    },
    uploadArtifact: async (name, path) => {
      if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL) return undefined;
      // Loaded only here, at the end of a run: it is a large part of the bundle.
      const { DefaultArtifactClient } = await import("@actions/artifact");
      const uploaded = await new DefaultArtifactClient().uploadArtifact(
        name,
        [path],
        dirname(path),
        { retentionDays: 30 },
      );
      return uploaded.id;
    },
  };
}
