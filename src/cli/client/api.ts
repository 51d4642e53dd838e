/**
 * The CLI's only way to the rules: JSON over HTTP to a kubecompat server.
 * Turns "no answer" into ServerUnreachableError (which URL, and how to get a
 * server there) and an error answer into ServerAnswerError carrying the
 * server's own code, message and details, which name the field to fix.
 */
import { ServerAnswerError, ServerUnreachableError, UsageError } from "./errors.js";

/** The upgrade planner walks every minor; generous, but a hung server must not hang CI forever. */
const REQUEST_TIMEOUT_MS = 120_000;

export interface ServerErrorDetail {
  readonly field?: string;
  readonly message: string;
}

export interface ServerError {
  readonly code: string;
  readonly message: string;
  readonly details?: readonly ServerErrorDetail[];
}

/** Raised with the parsed error so callers can point a field back at the line of a file. */
export class ServerRefusedError extends ServerAnswerError {
  constructor(
    readonly status: number,
    readonly serverError: ServerError,
    readonly server: string,
  ) {
    super(`${server} answered ${status} ${serverError.code}: ${serverError.message}`);
  }
}

export class KubecompatApi {
  /** Always ends with "/", so route paths resolve beneath a server mounted under a path prefix. */
  readonly base: URL;

  constructor(
    server: string,
    private readonly userAgent: string,
    /** How messages and reports name the server; the URL unless given (--offline names the shipped kb/). */
    private readonly label?: string,
    /** Sent as the bearer token ($KUBECOMPAT_TOKEN): registering in the fleet needs an editor's. */
    private readonly token?: string,
  ) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new UsageError(
        `--server / KUBECOMPAT_URL "${server}" is not a URL; write it like http://localhost:4000`,
        null,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new UsageError(
        `--server / KUBECOMPAT_URL "${server}" must be an http:// or https:// URL`,
        null,
      );
    }
    url.search = "";
    url.hash = "";
    if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
    this.base = url;
  }

  /** The server as users wrote it, for messages. */
  get server(): string {
    return this.label ?? this.base.href.replace(/\/$/, "");
  }

  async post(route: string, body: unknown): Promise<unknown> {
    return this.send("POST", route, body);
  }

  /** A read: the query's defined values become the query string. */
  async get(route: string, query: Readonly<Record<string, string | undefined>>): Promise<unknown> {
    return this.send("GET", route, undefined, query);
  }

  private async send(
    method: "GET" | "POST",
    route: string,
    body: unknown,
    query: Readonly<Record<string, string | undefined>> = {},
  ): Promise<unknown> {
    const url = new URL(route.replace(/^\//, ""), this.base);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, value);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          ...(method === "POST" ? { "content-type": "application/json" } : {}),
          accept: "application/json",
          "user-agent": this.userAgent,
          ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
        },
        ...(method === "POST" ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        redirect: "error",
      });
    } catch (error) {
      throw this.unreachable(error);
    }
    const text = await response.text().catch(() => "");
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = undefined;
    }
    if (response.ok) {
      if (answer === undefined || answer === null || typeof answer !== "object") {
        throw new ServerAnswerError(
          `${this.server} answered ${method} ${url.pathname} with something that is not JSON; is it a kubecompat server?`,
          [`the answer began: ${JSON.stringify(text.slice(0, 80))}`],
        );
      }
      return answer;
    }
    const serverError = errorOf(answer);
    if (serverError !== null)
      throw new ServerRefusedError(response.status, serverError, this.server);
    throw new ServerAnswerError(
      `${this.server} answered ${method} ${url.pathname} with ${response.status} ${response.statusText} and no kubecompat error; is it a kubecompat server?`,
      text.trim() === "" ? [] : [`the answer began: ${JSON.stringify(text.slice(0, 80))}`],
    );
  }

  private unreachable(error: unknown): ServerUnreachableError {
    const fix = [
      "Start a server with `npm start` in the kubecompat repository,",
      "or point the CLI at a running one with --server URL or the KUBECOMPAT_URL environment variable.",
    ];
    if (error instanceof DOMException && error.name === "TimeoutError") {
      return new ServerUnreachableError(
        `${this.server} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`,
        fix,
      );
    }
    return new ServerUnreachableError(
      `cannot reach the kubecompat server at ${this.server} (${causeOf(error)})`,
      fix,
    );
  }
}

/** fetch hides the socket error (ECONNREFUSED, ENOTFOUND...) in `cause`, sometimes one level deeper. */
function causeOf(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string" && !code.startsWith("ERR_")) return code;
    if (current.cause === undefined) break;
    current = current.cause;
  }
  return current instanceof Error ? current.message : String(current);
}

function errorOf(answer: unknown): ServerError | null {
  if (answer === null || typeof answer !== "object" || !("error" in answer)) return null;
  const error = answer.error;
  if (error === null || typeof error !== "object") return null;
  const { code, message, details } = error as Record<string, unknown>;
  if (typeof code !== "string" || typeof message !== "string") return null;
  const detailList = Array.isArray(details)
    ? details.filter(
        (detail): detail is ServerErrorDetail =>
          detail !== null &&
          typeof detail === "object" &&
          typeof (detail as { message?: unknown }).message === "string",
      )
    : undefined;
  return { code, message, ...(detailList === undefined ? {} : { details: detailList }) };
}
