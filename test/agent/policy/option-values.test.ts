import { describe, it } from "vitest";
import { type Row, useShellRows } from "./shell-rows.js";

const check = useShellRows();

/** `--opt=value` for an option the policy does not know: a value that names a place outside is refused. */
describe("run_shell: unknown --opt=value", () => {
  it.each<Row>([
    ["git diff-tree --output=/etc/x HEAD", "deny", "deny", "allow", "`/etc/x` is outside"],
    ["git blame --contents=/etc/passwd src/a.ts", "deny", "deny", "allow", "`/etc/passwd`"],
    ["git ls-files --exclude-from=/etc/x", "deny", "deny", "allow", "`/etc/x` is outside"],
    ["git add --pathspec-from-file=/etc/passwd", "deny", "deny", "allow", "`/etc/passwd`"],
    ["git log --output=../log.txt", "deny", "deny", "allow", "`../log.txt` is outside"],
    ["npm test -- --outputFile=/tmp/out.json", "deny", "deny", "allow", "`/tmp/out.json`"],
    ["npm run build -- --outDir=../dist", "deny", "deny", "allow", "`../dist` is outside"],
    ["yarn test --config=/etc/x", "deny", "deny", "allow", "`/etc/x` is outside"],
    ["npx vitest run -- --outputFile=/tmp/x.json", "deny", "deny", "allow", "`/tmp/x.json`"],
  ])("%s", (...row) => check(row));

  it.each<Row>([
    ["git log --format=/%h --since=2.weeks", "allow", "allow", "allow"],
    ["git diff --stat=100 --color=never", "allow", "allow", "allow"],
    ["npm test -- --reporter=verbose src/a.test.ts", "deny", "allow", "allow"],
  ])("%s stays allowed", (...row) => check(row));
});

/**
 * `--opt=value` whose value expands at run time: the option is split off
 * the word, so a value like `$HOME/.gitconfig` is refused as it is when
 * written as a separate word.
 */
describe("run_shell: option values only known at run time", () => {
  it.each<Row>([
    ["git diff-tree --output=$HOME/.gitconfig HEAD", "deny", "deny", "allow", "only known when"],
    ['git diff-tree --output="$HOME/.gitconfig" HEAD', "deny", "deny", "allow", "only known"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
    ["git diff-tree --output=${HOME}/.gitconfig HEAD", "deny", "deny", "allow", "only known"],
    ["git diff-tree --output=$(echo /tmp/x) HEAD", "deny", "deny", "allow", "only known"],
    ["git diff --output=$HOME/x", "deny", "deny", "allow", "only known when the command runs"],
    ["git log --output=out/$X", "deny", "deny", "allow", "only known when the command runs"],
    ["git blame --contents=$HOME/x src/a.ts", "deny", "deny", "allow", "only known when"],
    ["git add --pathspec-from-file=$LIST", "deny", "deny", "allow", "may take a path"],
    ["git diff -O$HOME/order", "deny", "deny", "allow", "may take a path"],
    ["git diff $X", "deny", "deny", "allow", "could expand to an option"],
    ['git log "$(echo --output=/tmp/x)"', "deny", "deny", "allow", "could expand to an option"],
    ["git show {HEAD,--output=/tmp/x}", "deny", "deny", "allow", "could expand to an option"],
    ["sort --output=$HOME/x src/a.ts", "deny", "deny", "allow", "only known when"],
    ["node --require=$HOME/x.js src/a.js", "deny", "deny", "allow", "only known when"],
  ])("%s", (...row) => check(row));

  it.each<Row>([
    ['git commit -m "$MSG"', "deny", "allow", "allow"],
    ['git commit --message="fix: $WHAT"', "deny", "allow", "allow"],
    ['git log --format="%h $X" -n 3', "allow", "allow", "allow"],
    ['git log --since="$SINCE"', "allow", "allow", "allow"],
    ["git show HEAD~$N", "allow", "allow", "allow"],
    ['git diff -- "$FILE"', "allow", "allow", "allow"],
    ["git status $X", "allow", "allow", "allow"],
    ['grep --regexp="$X" src/a.ts', "allow", "allow", "allow"],
  ])("%s stays allowed", (...row) => check(row));
});

/** Options that read a file the policy did not see named as an operand. */
describe("run_shell: files read through options", () => {
  it.each<Row>([
    ["git blame -S /etc/passwd src/a.ts", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["date -f /etc/passwd", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["date --file=/etc/passwd", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["date -r /etc/shadow", "deny", "deny", "allow", "`/etc/shadow` is outside"],
    ["xargs -a /etc/passwd echo", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["xargs --arg-file=/etc/passwd", "deny", "deny", "allow", "`/etc/passwd` is outside"],
    ["command time -o /etc/x ls", "deny", "deny", "allow", "`/etc/x` is outside"],
    ["find . -newer /etc/shadow", "deny", "deny", "allow", "`/etc/shadow` is outside"],
    ["cat escape/../outside/secret.txt", "deny", "deny", "allow", "outside the workspace"],
  ])("%s", (...row) => check(row));

  it.each<Row>([
    ["sort --files0-from=src/list src/a.ts", "deny", "deny", "allow", "names of the files"],
    ["wc -l --files0-from=src/list", "deny", "deny", "allow", "names of the files"],
    ["file -f src/list", "deny", "deny", "allow", "names of the files"],
    ["find . -files0-from src/list", "deny", "deny", "allow", "names of the files"],
  ])("%s (file names from a file)", (...row) => check(row));

  it.each<Row>([
    ["date +%Y-%m-%d", "allow", "allow", "allow"],
    ["date -d yesterday +%s", "allow", "allow", "allow"],
    ["date -r src/a.ts", "allow", "allow", "allow"],
    ["xargs -a src/a.ts echo", "allow", "allow", "allow"],
    ["find src -newer src/a.ts", "allow", "allow", "allow"],
    ["node scripts/x.js", "deny", "allow", "allow"],
    ["make", "deny", "allow", "allow"],
  ])("%s stays allowed", (...row) => check(row));
});

/** Options that run code given on the command line rather than from a file in the workspace. */
describe("run_shell: inline code through options", () => {
  it.each<Row>([
    ["node --import=data:text/javascript,1 src/a.js", "deny", "deny", "allow", "inline code"],
    ["make --eval='x:=$(shell id)'", "deny", "deny", "allow", "--eval"],
  ])("%s", (...row) => check(row));
});
