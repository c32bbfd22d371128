import express, { type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { type SimulatorContext, PAYLOAD_PATH, cobPayload, locationBase, locationView } from '../context';
import { JWKS_PATH } from '../payload-signer';
import { sendProblem } from '../problem';
import { validateBody } from './validation';

// `PayloadLocationSolicitada`: a location for an immediate charge (`cob`) or for one with a due date (`cobv`).
const locationSchema = Joi.object<{ tipoCob: 'cob' | 'cobv' }>({
  tipoCob: Joi.string().valid('cob', 'cobv').required(),
}).unknown(true);

/**
 * The public side of locations, outside API Pix's authenticated prefix: `GET /qr/v2/{pixUrlAccessToken}`, the URL a
 * BR Code carries, answers the cob's payload as a signed JWS (`application/jose`, API Pix `CobPayload`), and
 * `GET /jwks.json` the key that verifies it. A location no cob is linked to (never linked, or left behind when its cob
 * moved) is not found.
 */
export function payloadRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.get(JWKS_PATH, (_req, res, next) => {
    context.signer
      .jwks()
      .then((jwks) => res.set('cache-control', 'max-age=300').json(jwks))
      .catch(next);
  });
  router.get(
    `${PAYLOAD_PATH}/:pixUrlAccessToken`,
    asyncHandler(async (req, res) => {
      const cob = await context.store.getByAccessToken(req.params.pixUrlAccessToken ?? '');
      if (!cob) {
        sendProblem(res, 404, 'CobPayloadNaoEncontrado', 'Cobrança não encontrada para a location.');
        return;
      }
      const jws = await context.signer.sign(
        cobPayload(cob, context.clock.now()),
        `http://${req.get('host')}${JWKS_PATH}`,
      );
      res.type('application/jose').send(jws);
    }),
  );
  return router;
}

/** `POST {prefix}/loc` `{tipoCob: 'cob'}` and `GET {prefix}/loc/:id` (API Pix v2): locations to link a cob to. */
export function locationRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.post(
    '/loc',
    TokenIssuer.requireScope('payloadlocation.write'),
    asyncHandler(async (req, res) => {
      const body = validateBody(res, locationSchema, req.body, {
        name: 'PayloadLocationOperacaoInvalida',
        title: 'Location inválida.',
        prefix: 'loc',
      });
      if (!body) return;
      const loc = await context.store.createLocation(
        locationBase(req.get('host')),
        context.clock.now(),
        body.tipoCob,
      );
      res.status(201).json(locationView(loc));
    }),
  );
  router.get(
    '/loc/:id',
    TokenIssuer.requireScope('payloadlocation.read'),
    asyncHandler(async (req, res) => {
      const loc = /^\d{1,15}$/.test(req.params.id ?? '')
        ? await context.store.getLocation(Number(req.params.id))
        : undefined;
      if (loc) res.json(locationView(loc));
      else sendProblem(res, 404, 'PayloadLocationNaoEncontrado', 'Location não encontrada.');
    }),
  );
  return router;
}
