/**
 * zod taught to describe itself for OpenAPI: every schema module of
 * src/http/schemas/ takes `z` from here, so `.openapi()` exists before any
 * schema is built, whichever module a face imports first.
 */
import { extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";

extendZodWithOpenApi(z);

export { z };

/** A name or version typed by hand: 200 characters is far above any real one. */
export const shortText = (description: string, example?: string) =>
  z.string().max(200, "must be at most 200 characters").openapi({ description, example });
