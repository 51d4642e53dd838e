/**
 * The MCP face (Model Context Protocol): the questions of src/http/questions.ts
 * as tools, the knowledge base's kinds, the coverage table and the finding
 * codes as resources, and two prompts that tell an agent which tools to call.
 * It only translates: a tool's input schema is the schema REST validates
 * with, its input is checked by the same parser (same codes and messages as
 * REST, as a tool error), and its answer is the question's judgement, in the
 * summary form unless the agent asks for `detail: "full"`. Every tool reads;
 * nothing here writes, so no tool needs an editor's token.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../core/logger.js";
import type { LastChecks } from "../domain/coverage-ages.js";
import { describeError, detailsOf, errorBody } from "../http/errors.js";
import { parseInput } from "../http/input.js";
import { QUESTIONS, answerIn, type Question } from "../http/questions.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import { inputJsonSchema } from "./input-schemas.js";
import { PROMPTS, promptMessages } from "./prompts.js";
import { RESOURCES, readResource } from "./resources.js";

export interface McpDependencies {
  readonly kb: KnowledgeBase;
  readonly logger: Logger;
  readonly lastChecked?: () => Promise<LastChecks | undefined>;
  /** The request's id in the logs, for an internal error's message. */
  readonly requestId?: string;
}

const INSTRUCTIONS =
  'kubecompat answers Kubernetes version-compatibility questions from a reviewed, sourced knowledge base: version skew, upgrade plans, rollbacks, removed APIs in manifests, release support, platform (EKS/GKE/AKS) and add-on rules. Answers come as summaries (status, blocking findings, what could not be judged, steps as one line each); pass detail: "full" for every finding. NOT_JUDGED or a COVERAGE finding means the knowledge base could not judge that part: say so, never report it as fine. Read the coverage tool when a question concerns a new minor.';

/** The tools' schemas, made once: they follow from the questions' zod schemas, which never change at run time. */
let tools: ReturnType<typeof toolOf>[] | undefined;

function toolOf(question: Question) {
  return {
    name: question.name,
    title: question.title,
    description: `${question.description} (REST: ${question.rest.method.toUpperCase()} /api/v1${question.rest.path})`,
    inputSchema: inputJsonSchema(question.input),
    annotations: {
      title: question.title,
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
  };
}

/** A JSON answer as a tool's result: the text for any client, the structure for those that read it. */
function toolResult(value: unknown, isError = false): CallToolResult {
  const structured =
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

async function callTool(
  deps: McpDependencies,
  name: string,
  args: unknown,
): Promise<CallToolResult> {
  const question = QUESTIONS.find((candidate) => candidate.name === name);
  if (question === undefined)
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown tool ${JSON.stringify(name)}; the tools are ${QUESTIONS.map((known) => known.name).join(", ")}`,
    );
  try {
    const input = parseInput(question.input, args ?? {}, "arguments");
    const answer = await answerIn(
      question,
      deps.kb.current(),
      input,
      { lastChecked: deps.lastChecked },
      "summary",
    );
    return toolResult(answer);
  } catch (caught) {
    // REST's mapping: the same code, message and details an HTTP client gets, as a tool error.
    const described = describeError(caught);
    if (described.internal)
      deps.logger.error({ err: caught, requestId: deps.requestId, tool: name }, "MCP tool failed");
    return toolResult(errorBody(described.code, described.message, detailsOf(described)), true);
  }
}

/** One server per connection (stdio) or per request (stateless Streamable HTTP). */
export function mcpServer(deps: McpDependencies, version: string): Server {
  const server = new Server(
    { name: "kubecompat", title: "kubecompat", version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: (tools ??= QUESTIONS.map(toolOf)),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(deps, request.params.name, request.params.arguments),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
    contents: [
      {
        uri: request.params.uri,
        mimeType: "application/json",
        text: JSON.stringify(
          await readResource(deps.kb.current(), request.params.uri, deps.lastChecked),
        ),
      },
    ],
  }));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    promptMessages(request.params.name, request.params.arguments ?? {}),
  );
  return server;
}
