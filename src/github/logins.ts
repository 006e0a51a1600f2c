/**
 * GitHub logins compared the way GitHub shows them: an App is "name[bot]"
 * in one place and "name" in another, and its commits carry a noreply
 * address ("49699333+dependabot[bot]@users.noreply.github.com").
 */

/** The login without case or the `[bot]` suffix. */
export function bareLogin(login: string): string {
  return login.toLowerCase().replace(/\[bot\]$/, "");
}

export function sameLogin(a: string, b: string): boolean {
  return a !== "" && b !== "" && bareLogin(a) === bareLogin(b);
}

/** Whether a commit's author (name and email, as git records them) is the account `login`. */
export function authoredBy(author: { name: string; email: string }, login: string): boolean {
  const noreply = /^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$/i.exec(author.email)?.[1];
  return noreply !== undefined ? sameLogin(noreply, login) : false;
}
