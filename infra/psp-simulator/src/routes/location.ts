import express, { type Router } from 'express';
import Joi from 'joi';
import { type SimulatorContext, locationBase, locationView } from '../context';
import { sendProblem } from '../problem';
import { validateBody } from './validation';

// The simulator only keeps immediate charges, so `cob` is the only location type it hands out.
const locationSchema = Joi.object<{ tipoCob: 'cob' }>({
  tipoCob: Joi.string().valid('cob').required(),
}).unknown(true);

/**
 * `GET {prefix}/loc/:id`, the public URL inside the BR Code that the payer's bank fetches. Real PSPs answer a JWS
 * (`application/jose`) signed with their ICP-Brasil key; the simulator answers the same payload as plain JSON. A
 * location no cob is linked to (never linked, or left behind when its cob moved) is not found.
 */
export function payloadRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.get('/loc/:id', (req, res) => {
    const cob = context.store.getByLocationUuid(req.params.id);
    if (!cob) {
      sendProblem(res, 404, 'PayloadLocationNaoEncontrado', 'Location não encontrada.');
      return;
    }
    res.json({
      revisao: cob.revisao,
      calendario: {
        criacao: cob.criacao.toISOString(),
        apresentacao: new Date().toISOString(),
        expiracao: cob.expiracao,
      },
      valor: { original: cob.valorOriginal },
      chave: cob.chave,
      txid: cob.txid,
      ...(cob.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cob.solicitacaoPagador }),
      status: cob.status,
    });
  });
  return router;
}

/** `POST {prefix}/loc` `{tipoCob: 'cob'}` (API Pix v2): a new location, to link to a cob with `loc.id`. */
export function locationRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.post('/loc', (req, res) => {
    const body = validateBody(res, locationSchema, req.body, {
      name: 'PayloadLocationOperacaoInvalida',
      title: 'Location inválida.',
      prefix: 'loc',
    });
    if (!body) return;
    const base = locationBase(req.get('host'), context.settings);
    res.status(201).json(locationView(context.store.createLocation(base, new Date())));
  });
  return router;
}
