import { describe, it } from "vitest";
import { type Row, useShellRows } from "./shell-rows.js";

const check = useShellRows();

/** Builtins that set a variable without `NAME=value`: PATH and friends decide what runs. */
describe("run_shell: steering variables set without an assignment", () => {
  it.each<Row>([
    ["read PATH", "deny", "deny", "allow", "setting `PATH`"],
    ["read -r -a PATH < src/a.ts", "deny", "deny", "allow", "setting `PATH`"],
    [
      "while read -r LD_PRELOAD; do npm test; done < src/a.ts",
      "deny",
      "deny",
      "allow",
      "setting `LD_PRELOAD`",
    ],
    ["printf -v PATH %s .", "deny", "deny", "allow", "setting `PATH`"],
    ["printf -vBASH_ENV %s x.sh", "deny", "deny", "allow", "setting `BASH_ENV`"],
    ["printf -v 'PATH[0]' %s .", "deny", "deny", "allow", "setting `PATH`"],
    ["PATH[0]=. ls", "deny", "deny", "allow", "setting `PATH`"],
    ['export "PATH=.:$PATH"', "deny", "deny", "allow", "setting `PATH`"],
    ["declare 'LD_PRELOAD=./x.so'", "deny", "deny", "allow", "setting `LD_PRELOAD`"],
    ["typeset -x 'GIT_DIR=/tmp/x'", "deny", "deny", "allow", "setting `GIT_DIR`"],
    ["local ENV=x.sh", "deny", "deny", "allow", "setting `ENV`"],
    ["export $VARS", "deny", "deny", "deny", "comes from an expansion"],
    ["declare -n r=PATH; r=.", "deny", "deny", "deny", "-n"],
    ["mapfile PATH < src/a.ts", "deny", "deny", "allow", "setting `PATH`"],
    ["readarray -t LD_PRELOAD < src/a.ts", "deny", "deny", "allow", "setting `LD_PRELOAD`"],
    ["mapfile -C 'curl x' -c 1 lines < src/a.ts", "deny", "deny", "deny", "callback"],
    ["getopts ab PATH", "deny", "deny", "allow", "setting `PATH`"],
    ["for PATH in .; do ls; done", "deny", "deny", "allow", "setting `PATH`"],
    ["select PATH in . src; do ls; done", "deny", "deny", "allow", "setting `PATH`"],
    ["let PATH=5", "deny", "deny", "allow", "setting `PATH`"],
    ["(( PATH = 5 ))", "deny", "deny", "allow", "setting `PATH`"],
    ["echo $((PATH=5))", "deny", "deny", "allow", "setting `PATH`"],
    ["for ((i=0; i<1; PATH++)); do ls; done", "deny", "deny", "allow", "setting `PATH`"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template.
    ["echo ${a[PATH=5]}", "deny", "deny", "allow", "setting `PATH`"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template.
    [": ${PATH:=.}", "deny", "deny", "allow", "setting `PATH`"],
  ])("%s", (...row) => check(row));
});

describe("run_shell: variables that stay allowed", () => {
  it.each<Row>([
    ["read -r line < src/a.ts; echo $line", "allow", "allow", "allow"],
    ["printf -v out %s x; echo $out", "allow", "allow", "allow"],
    ["export FOO=1 && npm test", "deny", "allow", "allow"],
    ['export "NODE_ENV=test"', "allow", "allow", "allow"],
    ["for f in a b; do echo $f; done", "allow", "allow", "allow"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template.
    ["echo $((x + 1)) ${PATH} ${y:=1}", "allow", "allow", "allow"],
    ["[[ $PATH == *node* ]] && echo y", "allow", "allow", "allow"],
    ["export PATH", "allow", "allow", "allow"],
  ])("%s", (...row) => check(row));
});
