import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * An MCP server over Streamable HTTP on a loopback port, built with the
 * SDK's own server (stateless: a fresh server per request). It wants
 * `Authorization: Bearer <token>` and offers search_docs (read-only) and
 * publish_page (changes something). Every request's headers are recorded.
 */
export interface FakeDocsServer {
  url: string;
  authorizations: string[];
  published: string[];
  close(): Promise<void>;
}

export async function startDocsServer(token: string): Promise<FakeDocsServer> {
  const authorizations: string[] = [];
  const published: string[] = [];
  const build = () => {
    const server = new McpServer({ name: "docs", version: "1.0.0" });
    server.registerTool(
      "search_docs",
      {
        description: "Searches the documentation",
        inputSchema: { query: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ query }) => ({
        content: [{ type: "text", text: `docs about ${query}: use parse() with a string` }],
      }),
    );
    server.registerTool(
      "publish_page",
      { description: "Publishes a page", inputSchema: { title: z.string() } },
      async ({ title }) => {
        published.push(title);
        return { content: [{ type: "text", text: `published "${title}" (token ${token})` }] };
      },
    );
    return server;
  };
  const http = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? "");
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    const server = build();
    // No session id generator: stateless, each request on its own.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    server.connect(transport).then(
      () => transport.handleRequest(req, res),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    published,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
