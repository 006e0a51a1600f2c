import { programSource } from "./interpreters.js";
import type { SimpleCommand } from "./shell-analysis.js";

/**
 * Variables that change which program runs or what it loads: with them, an
 * allowed command name no longer says what executes.
 */
const STEERING_VARIABLES =
  /^(PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|NODE_OPTIONS|PYTHONSTARTUP|PERL5OPT|RUBYOPT|LD_\w+|DYLD_\w+|GIT_\w+|npm_config_\w+|NPM_CONFIG_\w+)$/;

export function variableHazard(name: string): string | undefined {
  if (!STEERING_VARIABLES.test(name)) return undefined;
  return `setting \`${name}\` changes which program runs or what it loads, so the policy cannot tell what executes; run the command without it`;
}

const STDIN_REDIRECTS = new Set(["<", "<<", "<<-", "<<<", "<&"]);

function sourcesHiddenFile(word: string, dynamic: boolean): boolean {
  return dynamic || /^\/(dev\/(stdin|fd\/)|proc\/)/.test(word);
}

/** Constructs in one command that hide what it runs. */
export function commandHazards(command: SimpleCommand): string[] {
  const [name = "", ...args] = command.argv;
  const hazards: string[] = [];
  if (command.argv.length === 0) return hazards;
  if (command.dynamic[0]) {
    hazards.push(
      `the command name \`${name}\` comes from an expansion, so the policy cannot see what runs; write the command name out`,
    );
    return hazards;
  }
  if (name === "eval") {
    hazards.push(
      "`eval` runs a string as a command, so the policy cannot see what runs; run the command directly",
    );
  }
  if ((name === "source" || name === ".") && args.length > 0) {
    if (sourcesHiddenFile(args[0] ?? "", command.dynamic[1] ?? false)) {
      hazards.push(
        `\`${name} ${args[0]}\` runs a script that is only known at run time; source a file from the workspace by its path`,
      );
    }
  }
  if (name === "env" && args.some((arg) => arg === "-S" || arg.startsWith("--split-string"))) {
    hazards.push(
      "`env -S` splits a string into a command the policy cannot see; write the command out",
    );
  }
  for (const assignment of command.via === "env" ? command.assignments : []) {
    const hazard = variableHazard(assignment.slice(0, assignment.indexOf("=")));
    if (hazard) hazards.push(hazard);
  }
  if (
    programSource(command.argv)?.kind === "stdin" &&
    command.redirects.some((redirect) => STDIN_REDIRECTS.has(redirect.op))
  ) {
    hazards.push(
      `\`${name}\` reads its program from a redirect, which the policy cannot check; save the script to a file in the workspace and run that`,
    );
  }
  return hazards;
}
