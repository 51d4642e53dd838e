/** How much of an answer to send: every finding and step, or the summary a chat bot or an agent can read. */
import { z } from "./openapi-zod.js";

export const detail = z
  .enum(["full", "summary"], { message: 'must be "full" or "summary"' })
  .optional()
  .openapi({
    description:
      'How much to answer: "full" (the default over REST and GraphQL) for every finding and step, or "summary" (the default over MCP) for the status, the blocking findings, what could not be judged, the steps as one line each and counts of the rest, a few KB.',
    example: "summary",
  });
