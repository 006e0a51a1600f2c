import { describe, it } from "vitest";
import { type Row, useShellRows } from "./shell-rows.js";

const check = useShellRows();

/** sed and awk read program files and, through some options and statements, files and programs. */
describe("run_shell: sed and awk programs", () => {
  it.each<Row>([
    ["sed -f /etc/x src/a.ts", "deny", "deny", "allow", "`/etc/x` is outside"],
    ["sed --file=../prog.sed src/a.ts", "deny", "deny", "allow", "`../prog.sed` is outside"],
    ["awk -f /etc/x src/a.ts", "deny", "deny", "allow", "`/etc/x` is outside"],
    ["gawk -l /tmp/x.so '{print}' src/a.ts", "deny", "deny", "allow", "`/tmp/x.so` is outside"],
    ["gawk -i /tmp/lib.awk '{print}' src/a.ts", "deny", "deny", "allow", "`/tmp/lib.awk`"],
    ["gawk -E /etc/x src/a.ts", "deny", "deny", "allow", "`/etc/x` is outside"],
    ["gawk -i inplace 'BEGIN{system(\"id\")}' src/a.ts", "deny", "deny", "allow", "runs commands"],
    ["awk 'BEGIN{ARGV[1]=\"/etc/passwd\";ARGC=2}{print}'", "deny", "deny", "allow", "ARGV"],
    ["gawk '@include \"/etc/passwd\"'", "deny", "deny", "allow", "@include"],
    ["gawk '@load \"/tmp/x\"; {print}' src/a.ts", "deny", "deny", "allow", "@load"],
    ["gawk -i inplace '{print}' .git/config", "deny", "deny", "deny", ".git"],
  ])("%s", (...row) => check(row));

  /** A program file is read and checked like the same program given inline. */
  it.each<Row>([
    ["sed -f src/run.sed src/a.ts", "deny", "deny", "allow", "the program in `src/run.sed`"],
    ["sed -n -f src/run.sed src/a.ts", "deny", "deny", "allow", "uses e, w or r"],
    ["sed -i -f src/write.sed src/a.ts", "deny", "deny", "allow", "uses e, w or r"],
    ["sed --file=src/write.sed src/a.ts", "deny", "deny", "allow", "uses e, w or r"],
    ["sed -e 's/a/b/' -f src/run.sed src/a.ts", "deny", "deny", "allow", "uses e, w or r"],
    ["awk -f src/run.awk src/a.ts", "deny", "deny", "allow", "runs commands"],
    ["awk --file=src/write.awk src/a.ts", "deny", "deny", "allow", "redirects output"],
    ["gawk -E src/run.awk src/a.ts", "deny", "deny", "allow", "runs commands"],
    ["gawk -i src/run.awk '{print}' src/a.ts", "deny", "deny", "allow", "runs commands"],
    ["sed -f src/missing.sed src/a.ts", "deny", "deny", "allow", "cannot be read"],
    ["awk -f src src/a.ts", "deny", "deny", "allow", "cannot be read"],
    // The file holds a harmless program now, but the same call rewrites it first.
    [
      "echo '1e id' > src/fix.sed; sed -f src/fix.sed src/a.ts",
      "deny",
      "deny",
      "allow",
      "written by this same command",
    ],
    [
      "echo 1e id | tee src/fix.sed && sed -f src/fix.sed src/a.ts",
      "deny",
      "deny",
      "allow",
      "same command",
    ],
    [
      "cp src/run.awk src/sum.awk; awk -f ./src/sum.awk src/a.ts",
      "deny",
      "deny",
      "allow",
      "same command",
    ],
  ])("%s", (...row) => check(row));

  it.each<Row>([
    ["sed -f src/fix.sed src/a.ts", "deny", "allow", "allow"],
    ["awk -f src/sum.awk src/a.ts", "deny", "allow", "allow"],
    ["gawk -i inplace '{sub(/a/, \"b\")} 1' src/a.ts", "deny", "allow", "allow"],
    ["awk 'NR > 1 {print $2}' src/a.ts", "deny", "allow", "allow"],
    ["sed --sandbox -f src/run.sed src/a.ts", "deny", "allow", "allow"],
    ["gawk -i inplace -f src/sum.awk src/a.ts", "deny", "allow", "allow"],
  ])("%s stays allowed", (...row) => check(row));
});
