import type { Node } from "web-tree-sitter";
import { inlineProgram, interpreterName, programSource, SHELLS } from "./interpreters.js";
import type { CommandAnalysis, Hazard, SimpleCommand } from "./shell-command.js";
import { commandHazards, hiddenProgram } from "./shell-hazards.js";
import type { ShellParser } from "./shell-parser.js";
import { syntaxVariableHazards } from "./shell-variables.js";
import {
  type Redirect,
  readAssignment,
  readPattern,
  readRedirect,
  readWord,
  type ShellWord,
} from "./shell-words.js";
import { unwrapCommand } from "./shell-wrappers.js";

/** `bash -c '...'` inside `bash -c '...'`: deeper than this is treated as hiding what runs. */
const MAX_NESTING = 4;

interface Scope {
  redirects: Redirect[];
  via: string | null;
  depth: number;
}

class Collector {
  readonly commands: SimpleCommand[] = [];
  readonly hazards = new Set<string>();
  readonly opaque = new Set<string>();
  readonly patterns: ShellWord[] = [];
  parseError: string | null = null;

  constructor(private readonly parser: ShellParser) {}

  analyze(text: string, scope: Scope): void {
    if (scope.depth > MAX_NESTING) {
      this.blind(
        `shell commands nested more than ${MAX_NESTING} levels deep cannot be checked; run the inner command directly`,
      );
      return;
    }
    const tree = this.parser.parse(text);
    if (!tree) {
      this.fail("the command could not be parsed");
      return;
    }
    try {
      if (tree.rootNode.hasError) {
        this.fail(describeSyntaxError(tree.rootNode));
        return;
      }
      this.walk(tree.rootNode, scope);
    } finally {
      tree.delete();
    }
  }

  /** A hazard that hides what runs even from the trusted preset. */
  private blind(sentence: string): void {
    this.hazards.add(sentence);
    this.opaque.add(sentence);
  }

  private note(hazard: Hazard): void {
    if (hazard.opaque) this.blind(hazard.sentence);
    else this.hazards.add(hazard.sentence);
  }

  private notePattern(node: Node | null): void {
    const pattern = node && readPattern(node);
    if (pattern) this.patterns.push(pattern);
  }

  private fail(reason: string): void {
    const sentence = `${reason}; check the quoting and syntax and send a simpler command`;
    this.parseError ??= sentence;
    this.hazards.add(sentence);
  }

  /** Walks any node; returns the innermost command it runs when the node is a simple command. */
  private walk(node: Node, scope: Scope): SimpleCommand | undefined {
    for (const hazard of syntaxVariableHazards(node)) this.note(hazard);
    switch (node.type) {
      case "command":
        return this.command(node, scope);
      case "declaration_command":
      case "unset_command":
        return this.declaration(node, scope);
      case "redirected_statement":
        return this.redirected(node, scope);
      case "pipeline":
        this.pipeline(node, scope);
        return undefined;
      case "command_substitution":
        if (node.text.startsWith("`") && node.text.slice(1, -1).includes("\\`")) {
          this.hazards.add(
            "nested backticks cannot be checked; use `$( )` for command substitution",
          );
        }
        this.children(node, { ...scope, redirects: [] });
        return undefined;
      case "process_substitution":
        this.children(node, { ...scope, redirects: [] });
        return undefined;
      case "heredoc_redirect":
        this.heredoc(node, scope);
        return undefined;
      case "for_statement":
        for (const value of node.childrenForFieldName("value")) this.notePattern(value);
        this.children(node, scope);
        return undefined;
      case "array":
        for (const element of node.namedChildren) this.notePattern(element);
        this.children(node, scope);
        return undefined;
      case "variable_assignment":
        this.notePattern(node.childForFieldName("value"));
        this.children(node, scope);
        return undefined;
      default:
        this.children(node, scope);
        return undefined;
    }
  }

  private children(node: Node, scope: Scope): void {
    for (const child of node.namedChildren) if (child) this.walk(child, scope);
  }

  private command(node: Node, scope: Scope): SimpleCommand | undefined {
    const words: ShellWord[] = [];
    const assignments: string[] = [];
    const redirects = [...scope.redirects];
    const nested = { ...scope, redirects: [] };
    for (let i = 0; i < node.childCount; i += 1) {
      const child = node.child(i);
      if (!child?.isNamed) continue;
      const field = node.fieldNameForChild(i);
      if (child.type === "variable_assignment") {
        assignments.push(readAssignment(child));
        this.walk(child, nested);
      } else if (field === "name" || field === "argument") {
        words.push(readWord(child));
        this.notePattern(child);
        this.walk(child, nested);
      } else if (child.type.endsWith("redirect")) {
        redirects.push(readRedirect(child));
        this.walk(child, nested);
      } else {
        this.walk(child, nested);
      }
    }
    return this.add(words, assignments, redirects, scope);
  }

  private declaration(node: Node, scope: Scope): SimpleCommand | undefined {
    const words: ShellWord[] = [{ text: node.child(0)?.text ?? "", dynamic: false }];
    for (const child of node.namedChildren) {
      if (!child) continue;
      words.push(
        child.type === "variable_assignment"
          ? { text: readAssignment(child), dynamic: false }
          : readWord(child),
      );
      this.walk(child, { ...scope, redirects: [] });
    }
    return this.add(words, [], [...scope.redirects], scope);
  }

  private redirected(node: Node, scope: Scope): SimpleCommand | undefined {
    const redirects: Redirect[] = [];
    for (const redirect of node.childrenForFieldName("redirect")) {
      if (!redirect) continue;
      redirects.push(readRedirect(redirect));
      this.walk(redirect, { ...scope, redirects: [] });
    }
    const inner = { ...scope, redirects: [...scope.redirects, ...redirects] };
    const body = node.childForFieldName("body");
    // A bare `> file` with no command still creates or truncates the file.
    return body ? this.walk(body, inner) : this.add([], [], inner.redirects, scope);
  }

  private pipeline(node: Node, scope: Scope): void {
    let stage = 0;
    for (const child of node.namedChildren) {
      if (!child) continue;
      const command = this.walk(child, scope);
      const source = command && stage > 0 ? programSource(command.argv) : undefined;
      if (command && source?.kind === "stdin" && !command.dynamic[0]) {
        // Into a shell, the text could be `git push`: hidden from the trusted preset's limits too.
        this.note({
          sentence: `piping into \`${command.argv[0]}\` runs text that is only known at run time; save the script to a file in the workspace and run that`,
          opaque: SHELLS.has(interpreterName(command.argv[0] ?? "")),
        });
      }
      stage += 1;
    }
  }

  private heredoc(node: Node, scope: Scope): void {
    const start = node.children.find((child) => child?.type === "heredoc_start")?.text ?? "";
    const expands = !/['"\\]/.test(start);
    const body = node.children.find((child) => child?.type === "heredoc_body");
    // The grammar leaves backticks in a heredoc body as plain text, but bash runs them.
    if (expands && /(^|[^\\])`/.test(body?.text ?? "")) {
      this.hazards.add(
        "backticks inside a heredoc run commands the policy cannot see; quote the delimiter (<<'EOF') or use `$( )`",
      );
    }
    this.children(node, { ...scope, redirects: [] });
  }

  /** Records a command and whatever it runs on its behalf; returns the innermost one. */
  private add(
    words: ShellWord[],
    assignments: string[],
    redirects: Redirect[],
    scope: Scope,
  ): SimpleCommand {
    const argv = words.map((word) => word.text);
    const command: SimpleCommand = {
      argv,
      dynamic: words.map((word) => word.dynamic),
      assignments,
      redirects,
      text: argv.join(" "),
      via: scope.via,
      argsFromInput: false,
    };
    return this.record(command, scope);
  }

  private record(command: SimpleCommand, scope: Scope): SimpleCommand {
    this.commands.push(command);
    const hidden = hiddenProgram(command);
    if (hidden) this.blind(hidden);
    else for (const hazard of commandHazards(command)) this.note(hazard);
    this.nestedShell(command, scope);
    let innermost = command;
    for (const wrapped of unwrapCommand(command.argv, command.dynamic)) {
      innermost = this.record(
        {
          argv: wrapped.argv,
          dynamic: wrapped.dynamic,
          assignments: [...command.assignments, ...wrapped.assignments],
          redirects: command.redirects,
          text: wrapped.argv.join(" "),
          via: wrapped.via,
          argsFromInput: wrapped.argsFromInput || command.argsFromInput,
        },
        scope,
      );
    }
    return innermost;
  }

  /** `bash -c 'literal'`: the literal is parsed and its commands checked like any others. */
  private nestedShell(command: SimpleCommand, scope: Scope): void {
    const inline = inlineProgram(command);
    if (inline?.kind === "shell") {
      const via = `${command.argv[0]} -c`;
      this.analyze(inline.program, { redirects: [], via, depth: scope.depth + 1 });
    } else if (inline?.kind === "opaque") this.blind(inline.hazard);
    else if (inline?.kind === "hidden") this.hazards.add(inline.hazard);
  }
}

function describeSyntaxError(root: Node): string {
  const bad = root.descendantsOfType(["ERROR"])[0];
  if (bad) return `the command could not be parsed near \`${bad.text.slice(0, 40)}\``;
  return "the command could not be parsed (it looks incomplete)";
}

/** Parses `text` as bash and lists every command it would run plus constructs that hide what runs. */
export function analyzeCommand(parser: ShellParser, text: string): CommandAnalysis {
  const collector = new Collector(parser);
  collector.analyze(text, { redirects: [], via: null, depth: 0 });
  return {
    commands: collector.commands,
    hazards: [...collector.hazards],
    opaque: [...collector.opaque],
    patterns: collector.patterns,
    parseError: collector.parseError,
  };
}
