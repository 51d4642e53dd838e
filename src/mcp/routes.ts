/**
 * MCP over Streamable HTTP at /mcp, stateless: each POST is answered by a
 * server made for it, so any replica answers any request and nothing is kept
 * between them. The caller was identified before the body was read, by the
 * same middleware and tokens as REST (reads as anonymous as the service's
 * read setting allows). GET (a server-sent stream) and DELETE (ending a
 * session) have nothing to serve without sessions: 405, as the transport
 * specification allows.
 */
import { Router, type Request, type Response } from "express";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { mcpServer, type McpDependencies } from "./server.js";

export const MCP_PATH = "/mcp";

export function mcpRoutes(deps: Omit<McpDependencies, "requestId">, version: string): Router {
  const router = Router();
  router.post(MCP_PATH, async (req: Request, res: Response) => {
    const requestId = typeof res.locals.requestId === "string" ? res.locals.requestId : undefined;
    const server = mcpServer({ ...deps, requestId }, version);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const noStream = (_req: Request, res: Response): void => {
    res.setHeader("Allow", "POST");
    res.status(405).json({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "this MCP endpoint is stateless: POST each JSON-RPC message; there is no stream to open or session to end",
      },
      id: null,
    });
  };
  router.get(MCP_PATH, noStream);
  router.delete(MCP_PATH, noStream);
  return router;
}
