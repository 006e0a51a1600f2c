import { beforeAll, describe, expect, it } from "vitest";
import {
  loadShellParser,
  type ShellParser,
  type SimpleCommand,
} from "../../../src/agent/policy/policy.js";
import { analyzeCommand } from "../../../src/agent/policy/shell-analysis.js";

let parser: ShellParser;
beforeAll(async () => {
  parser = await loadShellParser();
});

const argvs = (text: string): string[][] =>
  analyzeCommand(parser, text).commands.map((command) => command.argv);
const names = (text: string): string[] =>
  analyzeCommand(parser, text).commands.map((command) => command.argv[0] ?? "");
const only = (text: string): SimpleCommand => {
  const { commands } = analyzeCommand(parser, text);
  expect(commands).toHaveLength(1);
  return commands[0] as SimpleCommand;
};

describe("analyzeCommand: collecting commands", () => {
  it.each([
    ["a | b | c", ["a", "b", "c"]],
    ["a; b && c || d", ["a", "b", "c", "d"]],
    ["(a && (b; c))", ["a", "b", "c"]],
    ["{ a; b; }", ["a", "b"]],
    ["echo $(a) `b`", ["a", "b", "echo"]],
    ['echo "x $(a "$(b)")"', ["b", "a", "echo"]],
    ["diff <(a) >(b)", ["a", "b", "diff"]],
    ["f() { a; }; f", ["a", "f"]],
    ["if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]],
    [
      "for x in 1 2; do a; done; while b; do c; done; until d; do e; done",
      ["a", "b", "c", "d", "e"],
    ],
    ["case $x in y) a;; *) b;; esac", ["a", "b"]],
    ["x=$(a); arr=($(b)); echo $(( $(c) + 1 ))", ["a", "b", "c", "echo"]],
    ["[[ -n $(a) ]] && ! b", ["a", "b"]],
    ["cat <<EOF\n$(a)\nEOF", ["a", "cat"]],
    ["local v=$(a); export W=$(b)", ["a", "local", "b", "export"]],
    ["a &\nb", ["a", "b"]],
  ])("%j runs %j", (text, expected) => {
    expect(names(text)).toEqual(expected);
  });

  it("does not run what a quoted heredoc holds", () => {
    expect(names("cat <<'EOF'\n$(a) `b`\nEOF")).toEqual(["cat"]);
  });

  it("parses `bash -c` literals and lists their commands", () => {
    const { commands } = analyzeCommand(parser, "bash -lc 'a | b' && sh -c \"c; d\"");
    expect(commands.map((c) => [c.argv[0], c.via])).toEqual([
      ["bash", null],
      ["a", "bash -c"],
      ["b", "bash -c"],
      ["sh", null],
      ["c", "sh -c"],
      ["d", "sh -c"],
    ]);
  });

  it("lists wrapped commands after their wrappers", () => {
    expect(argvs("sudo -u me timeout -s KILL 5 nice -n 2 env -i A=1 make test")).toEqual([
      [
        "sudo",
        "-u",
        "me",
        "timeout",
        "-s",
        "KILL",
        "5",
        "nice",
        "-n",
        "2",
        "env",
        "-i",
        "A=1",
        "make",
        "test",
      ],
      ["timeout", "-s", "KILL", "5", "nice", "-n", "2", "env", "-i", "A=1", "make", "test"],
      ["nice", "-n", "2", "env", "-i", "A=1", "make", "test"],
      ["env", "-i", "A=1", "make", "test"],
      ["make", "test"],
    ]);
    expect(analyzeCommand(parser, "env A=1 make").commands[1]?.assignments).toEqual(["A=1"]);
  });

  it("unwraps xargs (echo by default) and find -exec", () => {
    const xargs = analyzeCommand(parser, "ls | xargs -n 1 && ls | xargs -0 grep x");
    expect(
      xargs.commands.filter((c) => c.via === "xargs").map((c) => [c.argv, c.argsFromInput]),
    ).toEqual([
      [["echo"], true],
      [["grep", "x"], true],
    ]);
    const find = analyzeCommand(parser, "find . -exec a {} \\; -execdir b {} + -print");
    expect(find.commands.map((c) => [c.argv, c.via])).toEqual([
      [["find", ".", "-exec", "a", "{}", ";", "-execdir", "b", "{}", "+", "-print"], null],
      [["a", "{}"], "find -exec"],
      [["b", "{}"], "find -execdir"],
    ]);
  });

  it("does not treat `command -v` as running the command", () => {
    expect(names("command -v curl")).toEqual(["command"]);
    expect(names("command curl x")).toEqual(["command", "curl"]);
  });
});

describe("analyzeCommand: words", () => {
  it("removes quotes and escapes like bash", () => {
    const command = only(`l\\s 'a b' "c\\"d" e\\ f $'g\\th' "x"'y'z ''`);
    expect(command.argv).toEqual(["ls", "a b", 'c"d', "e f", "g\th", "xyz", ""]);
    expect(command.dynamic.every((d) => !d)).toBe(true);
    expect(command.text).toBe('ls a b c"d e f g\th xyz ');
  });

  it("marks words that expand at run time", () => {
    const command = only('echo $A "$B/x" "pre$((1 + 2))" ~ {a,b} {1..3} *.ts');
    expect(command.dynamic).toEqual([false, true, true, true, false, true, true, false]);
    expect(command.argv[2]).toBe("$B/x");
  });

  it("keeps assignments and redirects with their targets", () => {
    const command = only("A=1 B='x y' npm test > out.log 2>&1 < in.txt");
    expect(command.assignments).toEqual(["A=1", "B=x y"]);
    expect(command.redirects).toEqual([
      { op: ">", target: "out.log", dynamic: false },
      { op: ">&", target: "1", dynamic: false },
      { op: "<", target: "in.txt", dynamic: false },
    ]);
  });

  it("gives a compound command's redirect to every command inside it", () => {
    const { commands } = analyzeCommand(parser, "{ a; b $(c); } >> log");
    expect(commands.map((x) => [x.argv[0], x.redirects.map((r) => r.target)])).toEqual([
      ["a", ["log"]],
      ["c", []],
      ["b", ["log"]],
    ]);
  });

  it("keeps a redirect with no command", () => {
    expect(only("> out.txt")).toMatchObject({
      argv: [],
      redirects: [{ op: ">", target: "out.txt" }],
    });
  });
});

describe("analyzeCommand: hazards", () => {
  it.each([
    ['eval "$X"', "`eval` runs a string"],
    ["eval echo hi", "`eval` runs a string"],
    ['bash -c "$Y"', "`bash` runs code built from an expansion"],
    ['python3 -c "$CODE"', "`python3` runs code built from an expansion"],
    ["node -e $JS", "`node` runs code built from an expansion"],
    ["$CMD args", "the command name `$CMD` comes from an expansion"],
    ["$(which curl) x", "comes from an expansion"],
    ["exec $X", "comes from an expansion"],
    ["xargs $X", "comes from an expansion"],
    ["curl x | sh", "piping into `sh`"],
    ["cat s | bash -s -- a", "piping into `bash`"],
    ["cat s | python", "piping into `python`"],
    ["cat s | sudo node", "piping into `node`"],
    ["bash < s.sh", "reads its program from a redirect"],
    ['sh <<< "curl x"', "reads its program from a redirect"],
    ["source <(curl x)", "runs a script that is only known at run time"],
    [". $FILE", "runs a script that is only known at run time"],
    ["source /dev/stdin", "runs a script that is only known at run time"],
    ["echo `echo \\`id\\``", "nested backticks"],
    ["cat <<EOF\n`id`\nEOF", "backticks inside a heredoc"],
    ["PATH=/tmp ls", "setting `PATH`"],
    ["export GIT_SSH_COMMAND=x", "setting `GIT_SSH_COMMAND`"],
    ["env LD_PRELOAD=x ls", "setting `LD_PRELOAD`"],
    ["env -S 'a b'", "`env -S`"],
    ["ls | xargs -I{} sh -c 'cat {}'", "runs code built from an expansion"],
    ["find . -exec sh -c 'rm {}' \\;", "code containing {}"],
    ['sh -c "sh -c \\"sh -c \'sh -c \\\\\\"sh -c ls\\\\\\"\'\\""', "nested more than 4 levels"],
  ])("%j", (text, phrase) => {
    const { hazards } = analyzeCommand(parser, text);
    expect(hazards.join("\n")).toContain(phrase);
  });

  it.each([
    "ls -la | grep x",
    'echo "$HOME"',
    "bash -c 'ls'",
    "bash scripts/build.sh",
    "cat data.json | node scripts/x.js",
    "cat x | python -m json.tool",
    "cat <<'EOF'\n`id`\nEOF",
    "FOO=1 npm test",
    "find . -exec grep -l x {} +",
  ])("no hazard in %j", (text) => {
    expect(analyzeCommand(parser, text).hazards).toEqual([]);
  });

  it("reports parse errors separately", () => {
    for (const text of ['echo "open', "ls &&", "ls ; ; ls", "if true; then"]) {
      const analysis = analyzeCommand(parser, text);
      expect(analysis.parseError, text).toMatch(/could not be parsed/);
      expect(analysis.hazards).toContain(analysis.parseError);
    }
    expect(analyzeCommand(parser, "ls").parseError).toBeNull();
  });
});

describe("analyzeCommand: what hides the program even from the trusted preset", () => {
  it.each([
    ["$CMD args", "comes from an expansion"],
    ['bash -c "$X"', "`bash` runs code built from an expansion"],
    ["ls | xargs sh -c", "through xargs runs code read from input"],
    ["find . -exec sh -c 'rm {}' \\;", "code containing {}"],
    ["find . -exec {} \\;", "a file name find passes"],
    ["/bin/c?rl x", "is a pattern"],
    ["env -S 'git push'", "`env -S`"],
    ['eval "$X"', "`eval` runs a string"],
    ["curl x | sh", "piping into `sh`"],
    ['sh <<< "$X"', "reads its program from a redirect"],
    ["GIT_CONFIG_PARAMETERS=$X git x", "`GIT_CONFIG_PARAMETERS`"],
    ['sh -c "sh -c \\"sh -c \'sh -c \\\\\\"sh -c ls\\\\\\"\'\\""', "nested more than 4 levels"],
  ])("%j is opaque", (text, phrase) => {
    const { opaque, hazards } = analyzeCommand(parser, text);
    expect(opaque.join("\n")).toContain(phrase);
    expect(hazards).toEqual(expect.arrayContaining(opaque));
  });

  it.each(['python3 -c "$CODE"', "curl x | python3", "PATH=/tmp ls", "bash -c 'ls'"])(
    "%j is a hazard the trusted preset may run",
    (text) => {
      expect(analyzeCommand(parser, text).opaque).toEqual([]);
    },
  );
});

describe("analyzeCommand: file-name patterns", () => {
  const patterns = (text: string) =>
    analyzeCommand(parser, text).patterns.map((word) => [word.text, word.dynamic]);

  it("collects unquoted patterns from arguments, for lists, arrays and assignments", () => {
    expect(patterns("echo /etc/* src/*.ts [ab]x; for f in ../*; do :; done")).toEqual([
      ["/etc/*", false],
      ["src/*.ts", false],
      ["[ab]x", false],
      ["../*", false],
    ]);
    expect(patterns("x=(/a/* b); y=~/*; echo $HOME/*")).toEqual([
      ["/a/*", false],
      ["~/*", false],
      ["$HOME/*", true],
    ]);
  });

  it("leaves quoted, escaped and matching-only patterns alone", () => {
    expect(
      patterns(
        "echo '/etc/*' \"*\" \\* x[ $((2*3)); [[ $x == /etc/* ]]; case $x in /etc/*) :;; esac",
      ),
    ).toEqual([]);
  });
});
