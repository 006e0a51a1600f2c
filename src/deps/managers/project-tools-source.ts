import type { ProjectToolsSource } from "../../kernel/project-tools.js";

/**
 * JobServices.projectTools for the entries: the managers' detection loads
 * only when a job opens its worksite, off the way to the Action's first
 * model request (its bundle's first graph stays without the managers).
 */
export const detectProjectTools: ProjectToolsSource = async (dir, env, warn) =>
  (await import("./project-tools.js")).projectTools(dir, env, warn);
