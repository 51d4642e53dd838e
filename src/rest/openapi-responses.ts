/**
 * The pieces every path of the OpenAPI document (src/rest/openapi.ts) repeats:
 * a JSON body, the error answers a route can give, and an optional
 * query-string field. Kept in one place so every path words them alike.
 */
import { errorResponse } from "../http/schemas/answers.js";
import { z } from "../http/schemas/openapi-zod.js";

export const json = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
/** What any route that reads a body may answer besides its own answer. */
export const errors = {
  400: {
    description: "Bad input; `error.details` names each field to fix.",
    ...json(errorResponse),
  },
  413: { description: "The body is larger than the limit.", ...json(errorResponse) },
  415: { description: "Wrong Content-Type.", ...json(errorResponse) },
  503: {
    description:
      "Retry after the Retry-After delay: the instance is already reading as many bodies of 1 MiB or more as it may (LARGE_REQUESTS_IN_FLIGHT) and this one waited 30 s, or the knowledge base is not loaded yet.",
    ...json(errorResponse),
  },
};
export const readErrors = {
  400: { description: "Bad query parameter; the message names it.", ...json(errorResponse) },
};
export const notModified = {
  304: { description: "The client already has this knowledge-base revision (If-None-Match)." },
};

/** What a route that needs a token answers when it has none, or a weak one. */
export const authErrors = {
  401: { description: "No token, or an unknown or revoked one.", ...json(errorResponse) },
  403: { description: "The token's role is too weak.", ...json(errorResponse) },
};

/** An optional query-string field, described. */
export const text = (description: string, example?: string) =>
  z.string().optional().openapi({ description, example });
