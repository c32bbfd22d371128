import { Router } from 'express';
import Joi from 'joi';
import { eventId, getEvent, listEvents, webhookEventNames } from '@gateway/contracts';
import { commandRoute, ownResourcePayload } from '../commands';
import { pageQuery, readPage, validateQuery } from '../validation';
import type { RouteContext } from './context';

export const eventsPage = pageQuery(eventId);
export const eventsFilter = Joi.object<{ type?: (typeof webhookEventNames)[number] }>({
  type: Joi.string().valid(...webhookEventNames),
});

/** /v1/events: the business's events of the last 30 days, the same bodies its webhooks receive. */
export function eventRoutes({ commands }: RouteContext): Router {
  const router = Router();
  router.get(
    '/events',
    commandRoute(commands, listEvents, (req, businessId) => {
      const { type } = validateQuery(eventsFilter, req.query);
      return { business_id: businessId, ...readPage(eventsPage, req.query), ...(type ? { type } : {}) };
    }),
  );
  router.get('/events/:event_id', commandRoute(commands, getEvent, ownResourcePayload('event_id', 'evt')));
  return router;
}
