/**
 * The fleet over REST: clusters registered and listed with their verdicts
 * and deadlines, events, subscriptions and their deliveries (the dead-letter
 * list and its replay), waivers, and the deadlines as an iCalendar feed.
 * Translation only: the FleetService judges, stores and delivers. Reads are
 * open as the other reads are; registering, subscribing and waiving need an
 * editor's token.
 */
import { InputError, UnsupportedMediaTypeError } from "../core/errors.js";
import { Router, type Request, type RequestHandler, type Response } from "express";
import { fleetCalendar } from "../services/fleet-calendar.js";
import type { FleetService } from "../services/fleet.js";
import { principalOf, requireEditor } from "../http/auth.js";
import {
  baselineCheckRequest,
  calendarQuery,
  clusterListQuery,
  clusterName,
  deliveryListQuery,
  eventListQuery,
  idParameter,
  registerClusterRequest,
  subscribeRequest,
  waiverRequest,
} from "../http/schemas/fleet.js";
import { clusterStateOf, registrationOf, waiverOf } from "../http/fleet-input.js";
import { inputErrorFrom, parseJsonBody, queryParameters } from "./parse.js";
import type { z } from "../http/schemas/openapi-zod.js";

function query<T extends z.ZodObject>(schema: T, req: Request): z.infer<T> {
  queryParameters(req, Object.keys(schema.shape));
  const parsed = schema.safeParse(req.query);
  if (!parsed.success) throw inputErrorFrom(parsed.error, "query");
  return parsed.data;
}

function parameter<T extends z.ZodType>(schema: T, req: Request, name: string): z.infer<T> {
  const parsed = schema.safeParse(req.params[name]);
  if (!parsed.success) throw inputErrorFrom(parsed.error, name);
  return parsed.data;
}

function editor(res: Response, action: string): string {
  return requireEditor(principalOf(res), action);
}

/** A route whose input is its path: a body is refused (a non-JSON one as every route refuses it), never ignored. */
function noBody(req: Request): void {
  const length = req.headers["content-length"];
  const hasBody =
    (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && !req.is("application/json"))
    throw new UnsupportedMediaTypeError(
      "this route takes no body; send none (or JSON {}), Content-Type: application/json",
    );
  const body: unknown = req.body;
  if (hasBody && body !== null && typeof body === "object" && Object.keys(body).length > 0)
    throw new InputError("this route takes no body: its input is the path", "body");
  queryParameters(req);
}

export function fleetRoutes(fleet: FleetService, writeLimit: RequestHandler): Router {
  const router = Router();
  router.post("/clusters", writeLimit, async (req, res) => {
    const body = parseJsonBody(registerClusterRequest, req);
    editor(res, "registering a cluster");
    const { cluster, created } = await fleet.register(registrationOf(body));
    res.status(created ? 201 : 200).json({ item: cluster });
  });
  router.get("/clusters", async (req, res) => {
    const filter = query(clusterListQuery, req);
    res.json({ items: await fleet.list(filter), today: fleet.today() });
  });
  router.get("/clusters/:name", async (req, res) => {
    queryParameters(req);
    res.json({ item: await fleet.clusterDetail(parameter(clusterName, req, "name")) });
  });
  // Reads only (nothing is stored): a CI job's question, open as the other checks are.
  router.post("/clusters/:name/baseline-check", async (req, res) => {
    const body = parseJsonBody(baselineCheckRequest, req);
    const name = parameter(clusterName, req, "name");
    res.json(await fleet.baselineCheck(name, clusterStateOf(body).state, body.baseline));
  });
  router.delete("/clusters/:name", writeLimit, async (req, res) => {
    queryParameters(req);
    editor(res, "removing a cluster");
    await fleet.remove(parameter(clusterName, req, "name"));
    res.status(204).end();
  });
  router.get("/events", async (req, res) => {
    res.json({ items: await fleet.events(query(eventListQuery, req)) });
  });
  router.post("/subscriptions", writeLimit, async (req, res) => {
    const body = parseJsonBody(subscribeRequest, req);
    const createdBy = editor(res, "subscribing to the fleet's events");
    res.status(201).json({ item: await fleet.alerts.subscribe({ ...body, createdBy }) });
  });
  router.get("/subscriptions", async (req, res) => {
    queryParameters(req);
    editor(res, "listing subscriptions");
    res.json({ items: await fleet.alerts.subscriptions() });
  });
  router.delete("/subscriptions/:id", writeLimit, async (req, res) => {
    queryParameters(req);
    editor(res, "removing a subscription");
    await fleet.alerts.unsubscribe(parameter(idParameter, req, "id"));
    res.status(204).end();
  });
  router.get("/deliveries", async (req, res) => {
    const { event, ...rest } = query(deliveryListQuery, req);
    editor(res, "reading deliveries");
    res.json({ items: await fleet.alerts.deliveries({ ...rest, eventId: event }) });
  });
  router.post("/deliveries/:id/replay", writeLimit, async (req, res) => {
    noBody(req);
    editor(res, "replaying a delivery");
    const id = parameter(idParameter, req, "id");
    await fleet.alerts.replay(id);
    res.status(202).json({ id, status: "PENDING" });
  });
  router.post("/waivers", writeLimit, async (req, res) => {
    const body = parseJsonBody(waiverRequest, req);
    const createdBy = editor(res, "waiving a finding");
    res.status(201).json({ item: await fleet.waive(waiverOf(body, createdBy)) });
  });
  router.get("/waivers", async (req, res) => {
    queryParameters(req);
    res.json({ items: await fleet.waivers() });
  });
  router.delete("/waivers/:id", writeLimit, async (req, res) => {
    queryParameters(req);
    editor(res, "removing a waiver");
    await fleet.unwaive(parameter(idParameter, req, "id"));
    res.status(204).end();
  });
  router.get("/calendar.ics", async (req, res) => {
    const filter = query(calendarQuery, req);
    const base = `${req.protocol}://${req.get("host") ?? "localhost"}`;
    const text = fleetCalendar(await fleet.list(filter), { base, generatedAt: new Date(), filter });
    res.type("text/calendar; charset=utf-8").send(text);
  });
  return router;
}
