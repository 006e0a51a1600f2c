import type { InstructionFile } from "../agent/prompt.js";
import type { GitHubClient } from "./octokit.js";

const FILES = ["AGENTS.md", "CLAUDE.md"];

/**
 * The repository's agent instructions as its maintainers wrote them: from
 * the base repository's branch, read through the API. For a fork's pull
 * request the files in the workspace are the fork's, and a fork's author
 * must not get to instruct the agent.
 */
export async function loadBaseInstructions(
  octokit: GitHubClient,
  where: { owner: string; repo: string; ref: string },
): Promise<InstructionFile[]> {
  const found = await Promise.all(
    FILES.map(async (path) => {
      try {
        const { data } = await octokit.rest.repos.getContent({ ...where, path });
        const file = data as { type?: string; content?: string; encoding?: string };
        if (file.type !== "file" || file.encoding !== "base64" || !file.content) return null;
        const content = Buffer.from(file.content, "base64").toString("utf8");
        return content.trim() ? { path, content } : null;
      } catch (error) {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      }
    }),
  );
  return found.filter((file): file is InstructionFile => file !== null);
}
