import { interpreterName, programSource, SHELLS } from "./interpreters.js";
import type { Hazard, SimpleCommand } from "./shell-command.js";
import { commandVariableHazards, variableHazard } from "./shell-variables.js";
import { wrapperOptions } from "./shell-wrappers.js";

const STDIN_REDIRECTS = new Set(["<", "<<", "<<-", "<<<", "<&"]);

function sourcesHiddenFile(word: string, dynamic: boolean): boolean {
  return dynamic || /^\/(dev\/(stdin|fd\/)|proc\/)/.test(word);
}

/**
 * A command whose program is not a literal: a name from an expansion, a
 * pattern the shell may turn into any file's name (`/usr/bin/g?t`), the
 * file names find passes (`-exec {} ...`), or a string env splits into a
 * command (`env -S`). Nothing else about such a command can be judged.
 */
export function hiddenProgram(command: SimpleCommand): string | undefined {
  const name = command.argv[0];
  if (name === undefined) return undefined;
  if (command.dynamic[0]) {
    return `the command name \`${name}\` comes from an expansion, so the policy cannot see what runs; write the command name out`;
  }
  if (/[*?[]/.test(name) && name !== "[") {
    return `the command name \`${name}\` is a pattern the shell may expand to another program's name; write the command name out`;
  }
  if (command.via?.startsWith("find") && name.includes("{}")) {
    return `the command name \`${name}\` under \`${command.via}\` is a file name find passes; name the program to run and pass {} as its argument`;
  }
  const options = wrapperOptions(command.argv, command.dynamic);
  return name === "env" && options.some((o) => o.name === "-S" || o.name === "--split-string")
    ? "`env -S` splits a string into a command the policy cannot see; write the command out"
    : undefined;
}

/** Constructs in one command (whose name is a literal) that hide what it runs. */
export function commandHazards(command: SimpleCommand): Hazard[] {
  const [name = "", ...args] = command.argv;
  const hazards: Hazard[] = [...commandVariableHazards(command)];
  // eval and a shell reading its program from input run code the trusted preset cannot see either.
  const opaque = (sentence: string) => hazards.push({ sentence, opaque: true });
  if (name === "eval") {
    opaque(
      "`eval` runs a string as a command, so the policy cannot see what runs; run the command directly",
    );
  }
  if ((name === "source" || name === ".") && args.length > 0) {
    if (sourcesHiddenFile(args[0] ?? "", command.dynamic[1] ?? false)) {
      opaque(
        `\`${name} ${args[0]}\` runs a script that is only known at run time; source a file from the workspace by its path`,
      );
    }
  }
  for (const assignment of command.via === "env" ? command.assignments : []) {
    const hazard = variableHazard(assignment.slice(0, assignment.indexOf("=")));
    if (hazard) hazards.push(hazard);
  }
  const source = programSource(command.argv);
  const shell = SHELLS.has(interpreterName(name));
  if (
    source?.kind === "stdin" &&
    command.redirects.some((redirect) => STDIN_REDIRECTS.has(redirect.op))
  ) {
    hazards.push({
      sentence: `\`${name}\` reads its program from a redirect, which the policy cannot check; save the script to a file in the workspace and run that`,
      opaque: shell,
    });
  }
  if (shell && source?.kind === "file" && command.dynamic[source.index]) {
    opaque(
      `\`${name}\` runs a script (${command.argv[source.index]}) that is only known at run time; save the script to a file in the workspace and run that`,
    );
  }
  return hazards;
}
