import { describe, it } from "vitest";
import { type Row, useShellRows } from "./shell-rows.js";

const check = useShellRows();

/** `-oFILE` is `-o FILE` to getopt, so a value glued to its option is checked like a separate one. */
describe("run_shell: values glued to short options", () => {
  it.each<Row>([
    ["cp -t/etc src/a.ts", "deny", "deny", "allow", "`/etc` is outside the workspace"],
    ["cp -vt/etc src/a.ts", "deny", "deny", "allow", "`/etc` is outside the workspace"],
    ["mv -t../x src/a.ts", "deny", "deny", "allow", "`../x` is outside the workspace"],
    ["sort -o/etc/x src/a.ts", "deny", "deny", "allow", "`/etc/x` is outside the workspace"],
    ["sort -o/tmp/sorted src/a.ts", "deny", "deny", "allow", "outside the workspace"],
    ["file -m/etc/magic src/a.ts", "deny", "deny", "allow", "`/etc/magic` is outside"],
    ["grep -f/etc/passwd src", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["tree -o/tmp/tree.txt src", "deny", "deny", "allow", "`/tmp/tree.txt` is outside"],
    ["git commit -F/etc/passwd", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["git commit -aF/etc/passwd", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["git grep -f/etc/passwd src", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["make -C/tmp test", "deny", "deny", "allow", "`/tmp` is outside the workspace"],
    ["awk -f/etc/passwd src/a.ts", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["sed -f/etc/passwd src/a.ts", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["sed -e's/^/id/e' src/a.ts", "deny", "deny", "allow", "e, w or r"],
    ["sed -ne'1r /etc/passwd' src/a.ts", "deny", "deny", "allow", "e, w or r"],
    ["env -S'curl x' ls", "deny", "deny", "deny", "env -S"],
    ["env -iC/ ls", "deny", "deny", "allow", "env -C"],
  ])("%s", (...row) => check(row));
});

/** An option the policy does not know may take a glued value; one that names a place outside is refused. */
describe("run_shell: glued values of unknown options", () => {
  it.each<Row>([
    ["node -r/tmp/hook.js src/a.js", "deny", "deny", "allow", "`/tmp/hook.js`"],
    ["npx tsc -p/tmp/tsconfig.json", "deny", "deny", "allow", "`/tmp/tsconfig.json`"],
    ["du -X../exclude src", "deny", "deny", "allow", "`../exclude`"],
  ])("%s", (...row) => check(row));
});

/** The trusted preset still keeps writes out of .git/, also through a glued target directory. */
describe("run_shell: glued targets into .git/", () => {
  it.each<Row>([
    ["cp -t.git/hooks src/a.ts", "deny", "deny", "deny", ".git"],
    ["cp -vt.git/hooks src/a.ts", "deny", "deny", "deny", ".git"],
    ["ln -st.git/hooks ../x", "deny", "deny", "deny", ".git"],
    ["ln -s ../.git/hooks src/h", "deny", "deny", "deny", "the link would point at `.git/hooks`"],
    ["sed -i -e's/.git/x/' src/a.ts", "deny", "allow", "allow"],
  ])("%s", (...row) => check(row));
});

describe("run_shell: glued options that stay allowed", () => {
  it.each<Row>([
    ["head -n5 src/a.ts", "allow", "allow", "allow"],
    ["cut -d/ -f2 src/a.ts", "allow", "allow", "allow"],
    ["cut -d / -f2 src/a.ts", "allow", "allow", "allow"],
    ["sort -t/ -k2 src/a.ts", "allow", "allow", "allow"],
    ["grep -A3 -e foo src", "allow", "allow", "allow"],
    ["awk -F/ '{print $1}' src/a.ts", "deny", "allow", "allow"],
    ["sort -osrc/sorted.txt src/a.ts", "deny", "allow", "allow"],
    ["git commit -am 'fix: thing'", "deny", "allow", "allow"],
    ["sed -i.bak 's/a/b/' src/a.ts", "deny", "allow", "allow"],
    ["cp -tsrc src/a.ts", "deny", "allow", "allow"],
  ])("%s", (...row) => check(row));
});
