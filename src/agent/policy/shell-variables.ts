import type { Node } from "web-tree-sitter";
import { type Argument, quote, readArguments } from "./shell-args.js";
import type { Hazard, SimpleCommand } from "./shell-command.js";

/**
 * Variables that change which program runs or what it loads: with them, an
 * allowed command name no longer says what executes. pnpm 11 and later read
 * their settings (`script-shell`, `node-options`...) from `pnpm_config_*`,
 * as npm and pnpm 10 do from `npm_config_*`, and yarn 2+ every setting from
 * `YARN_*` (`YARN_YARN_PATH` runs another file as yarn, `YARN_PLUGINS` loads
 * code into it).
 */
const STEERING_VARIABLES =
  /^(PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|NODE_OPTIONS|PYTHONSTARTUP|PERL5OPT|RUBYOPT|LD_\w+|DYLD_\w+|GIT_\w+|npm_config_\w+|NPM_CONFIG_\w+|pnpm_config_\w+|PNPM_CONFIG_\w+|YARN_\w+)$/;

/** Git configuration from the environment: an alias in it can hide a push, which even trusted keeps from the agent. */
const GIT_CONFIG_VARIABLES = /^GIT_CONFIG(_\w+)?$/;

export function variableHazard(name: string): Hazard | undefined {
  if (GIT_CONFIG_VARIABLES.test(name)) {
    return {
      sentence: `setting \`${name}\` gives git configuration the policy cannot check (an alias in it can hide a push); write settings out with \`git -c name=value\``,
      opaque: true,
    };
  }
  if (!STEERING_VARIABLES.test(name)) return undefined;
  return {
    sentence: `setting \`${name}\` changes which program runs or what it loads, so the policy cannot tell what executes; run the command without it`,
    opaque: false,
  };
}

/** A hidden variable name could be one of GIT_CONFIG_*, so these defeat the trusted preset's limits too. */
function hidden(sentence: string): Hazard {
  return { sentence, opaque: true };
}

/** `PATH[0]=x` sets PATH too: element 0 is the scalar. */
function hazardsFor(names: readonly string[]): Hazard[] {
  return names.flatMap((name) => variableHazard(name.replace(/\[.*$/, "")) ?? []);
}

/** Names an arithmetic expression assigns: `PATH=5`, `PATH+=1`, `PATH++`, `--PATH`. */
const ARITHMETIC_ASSIGNMENT =
  /\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)/g;

function arithmeticHazards(expression: string): Hazard[] {
  return hazardsFor(
    [...expression.matchAll(ARITHMETIC_ASSIGNMENT)].map((match) => match[1] ?? match[2] ?? ""),
  );
}

/**
 * Syntax that sets a variable without a command: assignments, `for NAME in`
 * (and select), arithmetic (`(( ))`, `$(( ))`, C-style for headers, array
 * subscripts) and `${NAME:=value}`.
 */
export function syntaxVariableHazards(node: Node): Hazard[] {
  switch (node.type) {
    case "variable_assignment":
    case "for_statement": {
      const name = node.childForFieldName(node.type === "for_statement" ? "variable" : "name");
      // `PATH[0]=x`: the name sits inside a subscript.
      const variable = name?.type === "subscript" ? name.childForFieldName("name") : name;
      return variable?.type === "variable_name" ? hazardsFor([variable.text]) : [];
    }
    case "arithmetic_expansion":
      return arithmeticHazards(node.text);
    case "compound_statement":
      return node.text.startsWith("((") ? arithmeticHazards(node.text) : [];
    case "c_style_for_statement":
      return ["condition", "update"].flatMap((field) =>
        node.childrenForFieldName(field).flatMap((part) => arithmeticHazards(part?.text ?? "")),
      );
    case "subscript":
      return arithmeticHazards(node.childForFieldName("index")?.text ?? "");
    case "expansion": {
      const assigned = /^\$\{([A-Za-z_]\w*):?=/.exec(node.text);
      return hazardsFor(assigned?.[1] ? [assigned[1]] : []);
    }
    default:
      return [];
  }
}

const DECLARING = new Set(["declare", "typeset", "local", "export", "readonly"]);

const ASSIGNED_NAME = /^([A-Za-z_]\w*)(\[[^\]]*\])?\+?=/;

/** The variables a declaration sets from its `NAME=value` words, quoted or not. */
function declarationHazards(command: SimpleCommand): Hazard[] {
  const name = command.argv[0] ?? "";
  // `export "PATH=$X"` still names PATH; `export "$V"` or `export "$N=1"` names nothing we can read.
  const hiddenWord = command.argv.find(
    (arg, i) => i > 0 && command.dynamic[i] && !ASSIGNED_NAME.test(arg),
  );
  if (hiddenWord !== undefined) {
    return [
      hidden(
        `\`${name} ${hiddenWord}\` sets a variable whose name comes from an expansion, so the policy cannot tell whether it changes PATH or the like; write NAME=value out`,
      ),
    ];
  }
  // `export -n` only un-exports; for the others -n makes a name refer to another variable.
  const nameref = name !== "export" && command.argv.some((arg) => /^-[A-Za-z]*n/.test(arg));
  if (nameref) {
    return [
      hidden(
        `\`${name} -n\` makes one variable stand for another, which hides which variable is set; assign the variable directly`,
      ),
    ];
  }
  return hazardsFor(command.argv.slice(1).map((arg) => ASSIGNED_NAME.exec(arg)?.[1] ?? ""));
}

/** The words naming the variables a builtin sets (`read -a NAME`, `printf -v NAME`...). */
function setTargets(command: SimpleCommand): Argument[] {
  switch (command.argv[0]) {
    case "read": {
      const { operands, values } = readArguments(command, {
        values: ["-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"],
      });
      return [...operands, ...values.filter((value) => value.option === "-a")];
    }
    case "printf":
      return readArguments(command, { values: ["-v"] }).values.filter((v) => v.option === "-v");
    case "mapfile":
    case "readarray":
      return readArguments(command, {
        values: ["-d", "-n", "-O", "-s", "-u", "-C", "-c"],
      }).operands.slice(0, 1);
    case "getopts":
      return readArguments(command).operands.slice(1, 2);
    default:
      return [];
  }
}

/**
 * Builtins that set variables named in their arguments: `read PATH`,
 * `printf -v PATH`, `mapfile`, `getopts`, `let`, and declarations written
 * as quoted words (`export "PATH=."`).
 */
export function commandVariableHazards(command: SimpleCommand): Hazard[] {
  const name = command.argv[0] ?? "";
  if (DECLARING.has(name)) return declarationHazards(command);
  if (name === "let") return command.argv.slice(1).flatMap(arithmeticHazards);
  if (
    (name === "mapfile" || name === "readarray") &&
    command.argv.some((a) => /^-[A-Za-z]*C/.test(a))
  ) {
    return [
      hidden(
        `\`${name} -C\` runs a callback string as a command, which the policy cannot see; read the lines and handle them in a loop instead`,
      ),
    ];
  }
  const targets = setTargets(command);
  if (targets.some((target) => target.dynamic)) {
    return [
      hidden(
        `${quote(command)} sets a variable whose name comes from an expansion, so the policy cannot tell whether it changes PATH or the like; write the name out`,
      ),
    ];
  }
  return hazardsFor(targets.map((target) => target.text));
}
