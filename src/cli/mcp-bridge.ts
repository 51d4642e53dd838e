/**
 * `kubecompat mcp`: MCP over stdio for an agent that starts kubecompat as a
 * subprocess. It holds no tools of its own: every message is relayed to the
 * Streamable HTTP endpoint (/mcp) of a server (--server, $KUBECOMPAT_URL, or
 * with --offline the one started in this process over the shipped kb/), so
 * the tools, schemas, answers and errors are that server's, and its token
 * ($KUBECOMPAT_TOKEN) is sent as REST's is. Nothing but MCP's messages goes
 * to stdout; problems go to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface McpBridgeOptions {
  /** The server's base URL, ending with "/" (a server under a path prefix keeps it). */
  readonly server: URL;
  readonly token: string | undefined;
  readonly userAgent: string;
}

/** A request that could not reach the server is answered, so the agent is not left waiting. */
function failedReply(message: JSONRPCMessage, error: unknown): JSONRPCMessage | undefined {
  if (!("id" in message) || !("method" in message)) return undefined;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: -32603,
      message: `kubecompat could not ask its server: ${error instanceof Error ? error.message : String(error)}`,
    },
  };
}

/** Relays until the agent closes stdin. */
export async function relayMcp(options: McpBridgeOptions): Promise<void> {
  const headers: Record<string, string> = { "User-Agent": options.userAgent };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const remote = new StreamableHTTPClientTransport(new URL("mcp", options.server), {
    requestInit: { headers },
  });
  const local = new StdioServerTransport();
  remote.onmessage = (message) => void local.send(message);
  let closing = false;
  // Closing aborts what the transport still holds open (its stream attempt): not worth a line.
  remote.onerror = (error) => {
    if (!closing) process.stderr.write(`kubecompat mcp: ${error.message}\n`);
  };
  // Requests still being answered when stdin closes (`printf ... | kubecompat mcp`) are answered first.
  const inFlight = new Set<Promise<void>>();
  local.onmessage = (message) => {
    const sent = remote.send(message).catch((error: unknown) => {
      const reply = failedReply(message, error);
      if (reply !== undefined) void local.send(reply);
      else process.stderr.write(`kubecompat mcp: ${String(error)}\n`);
    });
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };
  const closed = new Promise<void>((resolve) => {
    local.onclose = resolve;
    process.stdin.once("end", resolve);
  });
  await remote.start();
  await local.start();
  await closed;
  while (inFlight.size > 0) await Promise.all(inFlight);
  closing = true;
  await remote.close();
}
