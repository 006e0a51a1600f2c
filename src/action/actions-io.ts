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
  };
}
