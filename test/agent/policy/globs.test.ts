import { describe, it } from "vitest";
import { type Row, useShellRows } from "./shell-rows.js";

const check = useShellRows();

/** Bash expands an unquoted pattern into file names, so `echo /etc/*` lists a folder outside. */
describe("run_shell: globs that expand outside the workspace", () => {
  it.each<Row>([
    ["echo /etc/*", "deny", "deny", "allow", "`/etc/*` expands to names outside the workspace"],
    ["echo ../*", "deny", "deny", "allow", "`../*` expands to names outside"],
    ["printf '%s\\n' ~/.ssh/*", "deny", "deny", "allow", "`~/.ssh/*` expands"],
    ["echo .?/*", "deny", "deny", "allow", "`.?/*` expands"],
    ["for f in /etc/*; do echo $f; done", "deny", "deny", "allow", "`/etc/*` expands"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template.
    ["x=(/etc/*); echo ${x[@]}", "deny", "deny", "allow", "`/etc/*` expands"],
    ["x=/etc/*; echo $x", "deny", "deny", "allow", "`/etc/*` expands"],
    ["echo $HOME/*", "deny", "deny", "allow", "only known when the command runs"],
    ['echo "$d"/*.ts', "deny", "deny", "allow", "only known when the command runs"],
    ["ls ../*", "deny", "deny", "allow", "outside the workspace"],
    ["cat ~/.ssh/*", "deny", "deny", "allow", "outside the workspace"],
  ])("%s", (...row) => check(row));
});

describe("run_shell: globs that stay allowed", () => {
  it.each<Row>([
    ["echo src/*.ts", "allow", "allow", "allow"],
    ["ls -d */", "allow", "allow", "allow"],
    ["echo '/etc/*' \"../*\"", "allow", "allow", "allow"],
    ["echo \\/etc\\/\\*", "allow", "allow", "allow"],
    ["for f in src/*.ts; do echo $f; done", "allow", "allow", "allow"],
    ["[[ $x == /etc/* ]] && echo match", "allow", "allow", "allow"],
    ["case $x in /etc/*) echo y;; esac", "allow", "allow", "allow"],
    ["find src -name *.ts", "allow", "allow", "allow"],
    ["echo $((2*3)) x[", "allow", "allow", "allow"],
  ])("%s", (...row) => check(row));
});
