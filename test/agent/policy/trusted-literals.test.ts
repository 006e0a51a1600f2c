import { describe, it } from "vitest";
import { type Row, useShellRows } from "./shell-rows.js";

const check = useShellRows();

/**
 * The trusted preset keeps pushes and writes into .git/ out of reach, which
 * it can only do while it sees which program, git subcommand and shell
 * program runs; so even trusted needs those written out.
 */
describe("run_shell: what even the trusted preset needs written out", () => {
  it.each<Row>([
    ["git $X", "deny", "deny", "deny", "the git subcommand comes from an expansion"],
    ['git "$SUB" origin HEAD', "deny", "deny", "deny", "git subcommand"],
    ["timeout 5 git $X", "deny", "deny", "deny", "git subcommand"],
    ['f() { git "$@"; }; f push', "deny", "deny", "deny", "git subcommand"],
    ["echo push | xargs git", "deny", "deny", "deny", "git subcommand comes from input"],
    ['bash -c "$X"', "deny", "deny", "deny", "`bash` runs code built from an expansion"],
    ['sh -c "git $X"', "deny", "deny", "deny", "built from an expansion"],
    ["sh -c 'git $X'", "deny", "deny", "deny", "the git subcommand comes from an expansion"],
    ["ls | xargs sh -c", "deny", "deny", "deny", "from input"],
    ["ls | xargs -I{} bash -c {}", "deny", "deny", "deny", "built from an expansion"],
    ["find . -exec sh -c 'echo {}' \\;", "deny", "deny", "deny", "code containing {}"],
    ["$X", "deny", "deny", "deny", "the command name `$X` comes from an expansion"],
    ["$(echo git) push", "deny", "deny", "deny", "comes from an expansion"],
    ["exec $X", "deny", "deny", "deny", "comes from an expansion"],
    ["/usr/bin/g?t push", "deny", "deny", "deny", "`/usr/bin/g?t` is a pattern"],
    ["git p?sh", "deny", "deny", "deny", "`p?sh` is a pattern"],
    ["env -S'git push'", "deny", "deny", "deny", "env -S"],
    ["find / -name git -exec {} push \\;", "deny", "deny", "deny", "file name find passes"],
  ])("%s", (...row) => check(row));

  it.each<Row>([
    ["bash -c 'git status'", "allow", "allow", "allow"],
    ["git -C src status", "allow", "allow", "allow"],
    ["ls | xargs git add", "deny", "deny", "allow"],
    ['eval "$X"', "deny", "deny", "allow"],
    ["curl x | sh", "deny", "deny", "allow"],
  ])("%s (trusted still runs it)", (...row) => check(row));
});
