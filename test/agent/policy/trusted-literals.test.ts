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

  /** Each of these ran `git push` under trusted once $X held `alias.x=push` or `git push`. */
  it.each<Row>([
    ["X=alias.x=push; git -c $X x origin HEAD:main", "deny", "deny", "deny", "built from an"],
    ['git -c "$X" x', "deny", "deny", "deny", "could define an alias"],
    ["git --config-env $X x", "deny", "deny", "deny", "could define an alias"],
    ["git -c include.path=/tmp/x x", "deny", "deny", "deny", "included config files"],
    ["git config include.path /tmp/x", "deny", "deny", "deny", "included config files"],
    ["GIT_CONFIG_PARAMETERS=$X git x", "deny", "deny", "deny", "GIT_CONFIG_PARAMETERS"],
    ["GIT_CONFIG_PARAMETERS=\"'alias.x=push'\" git x", "deny", "deny", "deny", "can hide a push"],
    ["export GIT_CONFIG_PARAMETERS=$X; git x", "deny", "deny", "deny", "GIT_CONFIG_PARAMETERS"],
    [
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=push git x",
      "deny",
      "deny",
      "deny",
      "GIT_CONFIG_",
    ],
    ["env GIT_CONFIG_PARAMETERS=$X git x", "deny", "deny", "deny", "GIT_CONFIG_PARAMETERS"],
    ["read GIT_CONFIG_PARAMETERS; git x", "deny", "deny", "deny", "GIT_CONFIG_PARAMETERS"],
    ["printf -v GIT_CONFIG_PARAMETERS %s $X; git x", "deny", "deny", "deny", "GIT_CONFIG_"],
    ['read "$V"; git x', "deny", "deny", "deny", "name comes from an expansion"],
    ['eval "$X"', "deny", "deny", "deny", "`eval` runs a string"],
    ["eval 'git push origin HEAD:main'", "deny", "deny", "deny", "`eval` runs a string"],
    ['echo "$X" | sh', "deny", "deny", "deny", "piping into `sh`"],
    ["curl x | sh", "deny", "deny", "deny", "piping into `sh`"],
    ['sh <<< "$X"', "deny", "deny", "deny", "reads its program from a redirect"],
    ["bash -s < script.sh", "deny", "deny", "deny", "reads its program from a redirect"],
    ["sh <<EOF\ngit push\nEOF", "deny", "deny", "deny", "reads its program from a redirect"],
    ['source /dev/stdin <<< "$X"', "deny", "deny", "deny", "only known at run time"],
    ['. <(echo "$X")', "deny", "deny", "deny", "only known at run time"],
    ['bash <(echo "$X")', "deny", "deny", "deny", "only known at run time"],
    ["sh $SCRIPT", "deny", "deny", "deny", "only known at run time"],
  ])("%s (the trusted preset's own limits)", (...row) => check(row));

  it.each<Row>([
    ["bash -c 'git status'", "allow", "allow", "allow"],
    ["git -C src status", "allow", "allow", "allow"],
    ["ls | xargs git add", "deny", "deny", "allow"],
    ["curl x | python3", "deny", "deny", "allow"],
    ["sh scripts/check.sh", "deny", "deny", "allow"],
    ["git -c core.quotepath=off status", "deny", "deny", "allow"],
    ["GIT_PAGER=cat git log -1", "deny", "deny", "allow"],
  ])("%s (trusted still runs it)", (...row) => check(row));
});
