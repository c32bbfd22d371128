import express, { type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { recurrenceNow, runDueFirst, todayOf } from '../clock';
import { cycleFailureSchema, runCobrs } from './cobr';
import { PAYLOAD_PATH, type SimulatorContext, type SimulatorSettings } from '../context';
import { JWKS_PATH } from '../payload-signer';
import { brasiliaDay, dateOf, dayOf } from '../business-days';
import { toCentavos } from '../cob-store';
import { type Violation, findOwn, sendProblem, sendViolations } from '../problem';
import { notifyRecurrenceWebhook, recurrenceWebhookRoutes } from './recurrence-webhook';
import {
  type Destinatario,
  type Encerramento,
  type NewRec,
  type PagadorRec,
  type RecLocation,
  type RecChange,
  type RecRefusal,
  type StoredRec,
  type StoredSolicRec,
  recBaseView,
} from '../rec-store';
import { recurrenceBrCode } from '../br-code';
import {
  DEBTOR_FILTERS,
  SCHEMA_MESSAGES,
  TXID_PATTERN,
  cancellationSchema,
  cnpj,
  cpf,
  dateTime,
  freeText,
  givenFilters,
  isoDate,
  listParameters,
  pixAmount,
  readListQuery,
  validateBody,
} from './validation';

interface RecBody {
  vinculo: { objeto?: string; contrato: string; devedor: { cpf?: string; cnpj?: string; nome: string } };
  calendario: { dataInicial: string; dataFinal?: string; periodicidade: NewRec['periodicidade'] };
  valor?: { valorRec?: string; valorMinimoRecebedor?: string };
  recebedor?: { convenio?: string };
  politicaRetentativa: NewRec['politicaRetentativa'];
  loc?: number;
  ativacao?: { dadosJornada?: { txid: string } };
}

const dadosJornada = Joi.object({ txid: Joi.string().pattern(TXID_PATTERN).required() }).unknown(true);
// `RecSolicitada`: vinculo (contrato, devedor with a CPF or a CNPJ and the name), calendario (dataInicial,
// periodicidade), valor (valorRec or valorMinimoRecebedor, never both), recebedor.convenio, politicaRetentativa, loc.
const recBodySchema = Joi.object<RecBody>({
  vinculo: Joi.object({
    objeto: freeText(35),
    contrato: freeText(35).required(),
    devedor: Joi.object({ cpf, cnpj, nome: freeText(140).min(1).required() })
      .xor('cpf', 'cnpj')
      .unknown(true)
      .required(),
  })
    .unknown(true)
    .required(),
  calendario: Joi.object({
    dataInicial: isoDate.required(),
    dataFinal: isoDate,
    periodicidade: Joi.string().valid('SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL').required(),
  })
    .unknown(true)
    .required(),
  valor: Joi.object({ valorRec: pixAmount, valorMinimoRecebedor: pixAmount }).unknown(true),
  recebedor: Joi.object({ convenio: freeText(60) }).unknown(true),
  politicaRetentativa: Joi.string().valid('NAO_PERMITE', 'PERMITE_3R_7D').required(),
  loc: Joi.number().integer().min(1),
  ativacao: Joi.object({ dadosJornada }).unknown(true),
})
  .unknown(true)
  .messages(SCHEMA_MESSAGES);

interface RecRevisionBody {
  status?: 'CANCELADA';
  vinculo?: { devedor?: { nome: string } };
  loc?: number;
  calendario?: { dataInicial?: string };
  ativacao?: { dadosJornada?: { txid: string } };
}
// `RecRevisada`: the cancellation, the debtor's name, the location, the first date, journey 3's txid.
const recRevisionSchema = Joi.object<RecRevisionBody>({
  status: Joi.string().valid('CANCELADA'),
  vinculo: Joi.object({
    devedor: Joi.object({ nome: freeText(140).min(1).required() }).unknown(true),
  }).unknown(true),
  loc: Joi.number().integer().min(1),
  calendario: Joi.object({ dataInicial: isoDate }).unknown(true),
  ativacao: Joi.object({ dadosJornada }).unknown(true),
})
  .unknown(true)
  .messages(SCHEMA_MESSAGES);

interface SolicRecBody {
  idRec: string;
  calendario: { dataExpiracaoSolicitacao: string };
  destinatario: Destinatario;
}
// `SolicRecSolicitada`: idRec, calendario.dataExpiracaoSolicitacao, destinatario (conta, ispbParticipante, agencia
// and a CPF or a CNPJ).
const solicRecBodySchema = Joi.object<SolicRecBody>({
  idRec: Joi.string()
    .pattern(/^[a-zA-Z0-9]{29}$/)
    .required(),
  calendario: Joi.object({ dataExpiracaoSolicitacao: dateTime.required() }).unknown(true).required(),
  destinatario: Joi.object({
    conta: freeText(20).min(1).required(),
    ispbParticipante: Joi.string()
      .pattern(/^[0-9A-Z]{8}$/)
      .required(),
    agencia: freeText(4),
    cpf,
    cnpj,
  })
    .xor('cpf', 'cnpj')
    .unknown(true)
    .required(),
})
  .unknown(true)
  .messages(SCHEMA_MESSAGES);

/** The filters `GET /rec` takes beside the period and the page (API Pix 2.9.0). */
const LIST_FILTERS = {
  ...DEBTOR_FILTERS,
  locationPresente: Joi.string().valid('true', 'false'),
  status: Joi.string().valid('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'),
  convenio: freeText(60),
};

/** `RecId` and `idSolicRec` (29 alphanumerics). */
const ID_PATTERN = /^[a-zA-Z0-9]{29}$/;
const REC_PROBLEM = { name: 'RecOperacaoInvalida', title: 'Operação inválida.', prefix: 'rec' } as const;
const SOLICREC_PROBLEM = {
  name: 'SolicRecOperacaoInvalida',
  title: 'Operação inválida.',
  prefix: 'solicrec',
} as const;
const ENDED_REASON = 'A recorrência encontra-se expirada, cancelada ou rejeitada.';
const LOCATION_REFUSALS = {
  no_location: { razao: 'O location referenciado por rec.loc inexiste.', propriedade: 'rec.loc' },
  location_taken: {
    razao: 'O location referenciado por rec.loc já está sendo utilizado por outra recorrência.',
    propriedade: 'rec.loc',
  },
};

/**
 * Pix Automático at the receiving PSP (API Pix 2.9.0): `POST|GET /rec`, `GET|PATCH /rec/:idRec` (scopes `rec.write`,
 * `rec.read`), `POST /solicrec`, `GET|PATCH /solicrec/:idSolicRec` (`solicrec.*`) and `PUT|GET|DELETE /webhookrec`
 * (`webhookrec.*`). A recurrence is CRIADA until the payer answers the request for their authorization (APROVADA or
 * REJEITADA), the receiver or the payer cancels it (CANCELADA), or the clock passes its first date unauthorized or its
 * last date (EXPIRADA); each change of status is told to `{webhookrec}/rec`. Every request is checked as the document's
 * `RecOperacaoInvalida` and `SolicRecOperacaoInvalida` violations state.
 */
export function recRouter(context: SimulatorContext): Router {
  const { recs, settings, clock } = context;
  const router = express.Router();
  const sweep = runDueFirst(clock, (now) => expireRecs(context, now));

  router.post(
    '/rec',
    TokenIssuer.requireScope('rec.write'),
    sweep,
    asyncHandler(async (req, res) => {
      const body = validateBody(res, recBodySchema, req.body, REC_PROBLEM);
      if (!body) return;
      const now = clock.now();
      const today = dateOf(brasiliaDay(now));
      const violacoes: Violation[] = [];
      const add = (razao: string, propriedade: string) => violacoes.push({ razao, propriedade });
      if (body.calendario.dataInicial < today)
        add(
          'O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.',
          'rec.calendario.dataInicial',
        );
      if (body.calendario.dataFinal !== undefined && body.calendario.dataFinal < body.calendario.dataInicial)
        add(
          'O campo rec.calendario.dataFinal é anterior ao campo rec.calendario.dataInicial.',
          'rec.calendario.dataFinal',
        );
      if (body.valor?.valorRec !== undefined && body.valor.valorMinimoRecebedor !== undefined)
        add(
          'Ambos os campos rec.valor.valorRec e rec.valor.valorMinimoRecebedor estão preenchidos.',
          'rec.valor',
        );
      if (violacoes.length > 0) return sendViolations(res, REC_PROBLEM, violacoes);
      const { devedor } = body.vinculo;
      const rec = await recs.create(
        settings.pixKey,
        {
          politicaRetentativa: body.politicaRetentativa,
          periodicidade: body.calendario.periodicidade,
          dataInicial: body.calendario.dataInicial,
          ...(body.calendario.dataFinal === undefined ? {} : { dataFinal: body.calendario.dataFinal }),
          ...(body.valor?.valorRec === undefined
            ? {}
            : { valorRecCentavos: toCentavos(body.valor.valorRec) }),
          ...(body.valor?.valorMinimoRecebedor === undefined
            ? {}
            : { valorMinimoCentavos: toCentavos(body.valor.valorMinimoRecebedor) }),
          contrato: body.vinculo.contrato,
          ...(body.vinculo.objeto === undefined ? {} : { objeto: body.vinculo.objeto }),
          devedor: {
            ...(devedor.cpf === undefined ? {} : { cpf: devedor.cpf }),
            ...(devedor.cnpj === undefined ? {} : { cnpj: devedor.cnpj }),
            nome: devedor.nome,
          },
          ...(body.recebedor?.convenio === undefined ? {} : { convenio: body.recebedor.convenio }),
          ...(body.ativacao?.dadosJornada === undefined
            ? {}
            : { txidJornada: body.ativacao.dadosJornada.txid }),
        },
        now,
        today,
        body.loc,
      );
      if (typeof rec === 'string') return sendViolations(res, REC_PROBLEM, [LOCATION_REFUSALS[rec]]);
      res.status(201).json(recView(rec, settings));
    }),
  );

  router.get(
    '/rec/:idRec',
    TokenIssuer.requireScope('rec.read'),
    sweep,
    asyncHandler(async (req, res) => {
      const rec = await findRec(context, req, res);
      if (!rec) return;
      const { txid } = req.query;
      let charge: { jornada: 'JORNADA_3' | 'JORNADA_4'; location: string } | undefined;
      if (txid !== undefined) {
        const checked = await txidViolation(context, rec, txid);
        if (typeof checked === 'string') {
          sendProblem(res, 400, 'RecConsultaInvalida', 'Consulta inválida.', checked, [
            { razao: checked, propriedade: 'txid' },
          ]);
          return;
        }
        charge = checked;
      }
      // `dadosQR` only when the locations the composed QR needs are there.
      const dadosQR =
        rec.loc === undefined
          ? undefined
          : {
              jornada: charge?.jornada ?? 'JORNADA_2',
              pixCopiaECola: recurrenceBrCode(
                rec.loc.location,
                settings.merchantName,
                settings.merchantCity,
                charge?.location,
              ),
            };
      res.json({ ...(await recCompletaView(context, rec)), ...(dadosQR === undefined ? {} : { dadosQR }) });
    }),
  );

  router.patch(
    '/rec/:idRec',
    TokenIssuer.requireScope('rec.write'),
    sweep,
    asyncHandler(async (req, res) => {
      const rec = await findRec(context, req, res);
      const body = rec && validateBody(res, recRevisionSchema, req.body, REC_PROBLEM);
      if (!rec || !body) return;
      const now = clock.now();
      const change: RecChange = {
        ...(body.vinculo?.devedor === undefined ? {} : { devedorNome: body.vinculo.devedor.nome }),
        ...(body.calendario?.dataInicial === undefined ? {} : { dataInicial: body.calendario.dataInicial }),
        ...(body.ativacao?.dadosJornada === undefined
          ? {}
          : { txidJornada: body.ativacao.dadosJornada.txid }),
        ...(body.loc === undefined ? {} : { locId: body.loc }),
        ...(body.status === undefined
          ? {}
          : {
              status: 'CANCELADA' as const,
              encerramento: {
                cancelamento: {
                  solicitante: 'USUARIO_RECEBEDOR',
                  codigo: 'SLCR',
                  descricao: 'Cancelamento solicitado pelo usuário recebedor.',
                },
              } satisfies Encerramento,
            }),
      };
      let violacoes: Violation[] = [];
      // Checked again on the locked row: the payer may have answered since it was read.
      const changed = await recs.change(rec.idRec, change, now, (current) => {
        violacoes = revisionViolations(current, body);
        return violacoes.length > 0 ? 'not_created' : undefined;
      });
      if (changed === 'ended' || changed === 'not_found')
        return sendViolations(res, REC_PROBLEM, [{ razao: ENDED_REASON, propriedade: 'rec.status' }]);
      if (changed === 'no_location' || changed === 'location_taken')
        return sendViolations(res, REC_PROBLEM, [LOCATION_REFUSALS[changed]]);
      if (typeof changed === 'string') return sendViolations(res, REC_PROBLEM, violacoes);
      if (changed.changedStatus) await notifyRec(context, [changed.rec]);
      res.json(recView(changed.rec, settings));
    }),
  );

  router.get(
    '/rec',
    TokenIssuer.requireScope('rec.read'),
    sweep,
    asyncHandler(async (req, res) => {
      const query = readListQuery(res, req.query, 'RecConsultaInvalida', LIST_FILTERS);
      if (!query) return;
      const { filters } = query;
      const { recs: found, total } = await recs.list({
        pixKey: settings.pixKey,
        inicio: query.inicio,
        fim: query.fim,
        cpf: filters.cpf,
        cnpj: filters.cnpj,
        status: filters.status,
        convenio: filters.convenio,
        locationPresente:
          filters.locationPresente === undefined ? undefined : filters.locationPresente === 'true',
        page: query.paginaAtual,
        perPage: query.itensPorPagina,
      });
      res.json({
        parametros: listParameters(query, total, givenFilters(filters, ['locationPresente'])),
        recs: await Promise.all(found.map((rec) => recCompletaView(context, rec))),
      });
    }),
  );

  router.post(
    '/solicrec',
    TokenIssuer.requireScope('solicrec.write'),
    sweep,
    asyncHandler(async (req, res) => {
      const body = validateBody(res, solicRecBodySchema, req.body, SOLICREC_PROBLEM);
      if (!body) return;
      // By the recurrence's clock (when it names one of the account's; else the refusal below names it).
      const named = await recs.get(body.idRec);
      const now = named === undefined ? clock.now() : recurrenceNow(clock.now(), named);
      const expiracao = new Date(body.calendario.dataExpiracaoSolicitacao);
      if (expiracao.getTime() < now.getTime())
        return sendViolations(res, SOLICREC_PROBLEM, [
          {
            razao:
              'O campo solicrec.calendario.dataExpiracaoSolicitacao é anterior à data de criação da solicitação da recorrência.',
            propriedade: 'solicrec.calendario.dataExpiracaoSolicitacao',
          },
        ]);
      const { destinatario } = body;
      const created = await recs.createSolicRec(
        settings.pixKey,
        body.idRec,
        expiracao,
        {
          conta: destinatario.conta,
          ispbParticipante: destinatario.ispbParticipante,
          ...(destinatario.agencia === undefined ? {} : { agencia: destinatario.agencia }),
          ...(destinatario.cpf === undefined ? {} : { cpf: destinatario.cpf }),
          ...(destinatario.cnpj === undefined ? {} : { cnpj: destinatario.cnpj }),
        },
        clock.now(),
      );
      if (typeof created === 'string') {
        const razao = {
          rec_not_found: 'O campo solicrec.idRec não corresponde a uma recorrência deste usuário recebedor.',
          rec_not_created: 'A recorrência referenciada por solicrec.idRec não está com o status CRIADA.',
          in_flight: 'Existe uma solicitação ativa referente ao mesmo solicrec.idRec.',
        }[created];
        return sendViolations(res, SOLICREC_PROBLEM, [{ razao, propriedade: 'solicrec.idRec' }]);
      }
      res.status(201).json(solicRecView(created, (await recs.get(created.idRec))!, settings));
    }),
  );

  router.get(
    '/solicrec/:idSolicRec',
    TokenIssuer.requireScope('solicrec.read'),
    sweep,
    asyncHandler(async (req, res) => {
      const found = await findSolicRec(context, req, res);
      if (found) res.json(solicRecView(found.solicRec, found.rec, settings));
    }),
  );

  router.patch(
    '/solicrec/:idSolicRec',
    TokenIssuer.requireScope('solicrec.write'),
    sweep,
    asyncHandler(async (req, res) => {
      const found = await findSolicRec(context, req, res);
      const body = found && validateBody(res, cancellationSchema, req.body, SOLICREC_PROBLEM);
      if (!found || !body) return;
      const cancelled = await recs.cancelSolicRec(found.solicRec.idSolicRec, clock.now());
      if (typeof cancelled === 'string') {
        const razao =
          'Não é possível cancelar uma solicitação de recorrência com o status diferente de CRIADA, ENVIADA ou RECEBIDA.';
        return sendViolations(res, SOLICREC_PROBLEM, [{ razao, propriedade: 'solicrec.status' }], razao);
      }
      // The document answers a revised request with 201.
      res.status(201).json(solicRecView(cancelled, found.rec, settings));
    }),
  );

  recurrenceWebhookRoutes(router, context, {
    name: 'webhookrec',
    problem: 'WebhookRecOperacaoInvalida',
    books: recs,
  });

  return router;
}

interface AcceptBody {
  pagador?: { ispbParticipante?: string; cpf?: string; cnpj?: string; codMun?: string };
}
// `ispbParticipante` only for a QR code: a request names the payer's bank already.
const acceptSchema = Joi.object<AcceptBody>({
  pagador: Joi.object({
    ispbParticipante: Joi.string().pattern(/^[0-9A-Z]{8}$/),
    cpf,
    cnpj,
    codMun: Joi.string().pattern(/^\d{7}$/),
  })
    .oxor('cpf', 'cnpj')
    .unknown(false),
})
  .unknown(false)
  .messages(SCHEMA_MESSAGES);
interface RejectBody {
  codigo?: 'AP13' | 'AP14';
}
const rejectSchema = Joi.object<RejectBody>({
  codigo: Joi.string().valid('AP13', 'AP14'),
}).unknown(false);
const PAYER_CANCELLATION_CODES = ['ACCL', 'CPCL', 'DCSD', 'ERSL', 'FRUD', 'PCFD', 'SLDB'] as const;
const payerCancelSchema = Joi.object<{
  solicitante?: 'USUARIO_PAGADOR' | 'PSP_PAGADOR';
  codigo?: (typeof PAYER_CANCELLATION_CODES)[number];
}>({
  solicitante: Joi.string().valid('USUARIO_PAGADOR', 'PSP_PAGADOR'),
  codigo: Joi.string().valid(...PAYER_CANCELLATION_CODES),
}).unknown(false);

const REJECTIONS = {
  AP13: 'Rejeitada pelo usuário pagador.',
  AP14: 'Rejeitada pelo PSP pagador.',
} as const;

/** The payer (AP13, default) or their bank (AP14) rejects the authorization. */
function rejectionOf(body: RejectBody): { codigo: 'AP13' | 'AP14'; descricao: string } {
  const codigo = body.codigo ?? 'AP13';
  return { codigo, descricao: REJECTIONS[codigo] };
}

/**
 * The payer who authorized, as their bank reports them (`DadosPagadorRec.pagador`): at `ispbParticipante`, the CPF or
 * CNPJ `given` (else the one the receiver named: the request's destinatário, the recurrence's devedor) and `codMun`.
 */
function reportedPayer(
  ispbParticipante: string,
  given: AcceptBody['pagador'],
  named: { cpf?: string; cnpj?: string },
): PagadorRec {
  const who = given?.cpf !== undefined || given?.cnpj !== undefined ? given : named;
  return {
    ispbParticipante,
    ...(who.cpf === undefined ? { cnpj: who.cnpj! } : { cpf: who.cpf }),
    ...(given?.codMun === undefined ? {} : { codMun: given.codMun }),
  };
}

/** The simulated payer's bank: the ISPB every endToEndId the simulator mints starts with. */
function sandboxPayerIspb(context: SimulatorContext): string {
  return context.store.identifier('E', context.clock.now()).slice(1, 9);
}

/**
 * The sandbox payer's bank, not part of API Pix (the PSPs talk through SPI messages the receiver never sees):
 * - `POST {prefix}/sandbox/solicrec/:idSolicRec/aceitar` `{pagador?: {cpf|cnpj, codMun?}}`: the request reaches the
 *   payer (ENVIADA, RECEBIDA) who authorizes it: ACEITA, and the recurrence APROVADA by journey 1 with the payer as
 *   their bank reports them (by default the request's destinatário).
 * - `POST {prefix}/sandbox/solicrec/:idSolicRec/rejeitar` `{codigo?: AP13|AP14}`: the payer (AP13, default) or their
 *   bank (AP14) rejects it: REJEITADA, and the recurrence REJEITADA with `encerramento.rejeicao`.
 * - `POST {prefix}/sandbox/locrec/:id/aceitar` `{pagador?: {ispbParticipante?, cpf|cnpj, codMun?}}`: journey 2, the
 *   payer's bank read the recurrence's QR code (its location `id`) and the payer authorizes it: APROVADA by JORNADA_2
 *   (`dadosJornada` dropped, as the document has the receiver's PSP do), with the payer as their bank reports them (by
 *   default the simulator's payer's bank and the recurrence's devedor). A request in flight is left to expire.
 * - `POST {prefix}/sandbox/locrec/:id/rejeitar` `{codigo?: AP13|AP14}`: the payer (AP13, default) or their bank (AP14)
 *   rejects it: REJEITADA with `encerramento.rejeicao`. Both need the recurrence CRIADA at that location (404
 *   `RecPayloadNaoEncontrado` when the location serves none, as its payload would answer).
 * - `POST {prefix}/sandbox/rec/:idRec/cancelar` `{solicitante?, codigo?}`: the payer (default USUARIO_PAGADOR, code
 *   SLDB) or their bank cancels an approved recurrence: CANCELADA with `encerramento.cancelamento`.
 * - `GET {prefix}/sandbox/rec/:idRec/relogio` `{hoje}`: the recurrence's own clock (a test clock): the simulator's
 *   moved further ahead by the recurrence's offset. Everything about the recurrence and its cycles reads it.
 * - `POST {prefix}/sandbox/rec/:idRec/relogio/avancar` `{ate: YYYY-MM-DD}`: moves it to the start of that day in
 *   Brasília (never back: a day before its today is refused), running what fell due a day at a time (expiry, cycles
 *   sent, debited or failed, retries) and sending their callbacks before it answers `{hoje}`.
 * - `POST {prefix}/sandbox/rec/:idRec/falhar-proxima` `{codigo?}` (default `AM02`): the next attempt of the
 *   recurrence's next cycle fails, its open cycle's or else the next one created; answers the recurrence.
 * Each change of the recurrence is told to `{webhookrec}/rec`. An answer to a request no longer in flight, or to a
 * recurrence no longer CRIADA (cancelled by the receiver meanwhile, or already answered), is refused and changes
 * nothing.
 */
export function recSandboxRouter(context: SimulatorContext): Router {
  const { recs, settings, clock } = context;
  const router = express.Router();
  const sweep = runDueFirst(clock, (now) => expireRecs(context, now));

  const answer = (accept: boolean) =>
    asyncHandler(async (req: Request, res: Response) => {
      const found = await findSolicRec(context, req, res);
      const body =
        found &&
        (accept
          ? validateBody(res, acceptSchema, req.body, { ...SOLICREC_PROBLEM, prefix: 'aceite' })
          : validateBody(res, rejectSchema, req.body, { ...SOLICREC_PROBLEM, prefix: 'rejeicao' }));
      if (!found || !body) return;
      const { destinatario } = found.solicRec;
      const outcome: Parameters<typeof recs.answer>[1] = accept
        ? {
            accept: true,
            pagador: reportedPayer(destinatario.ispbParticipante, (body as AcceptBody).pagador, destinatario),
          }
        : { accept: false, rejeicao: rejectionOf(body as RejectBody) };
      const answered = await recs.answer(found.solicRec.idSolicRec, outcome, clock.now());
      if (typeof answered === 'string') {
        const current = await recs.getSolicRec(found.solicRec.idSolicRec);
        const rec = await recs.get(found.rec.idRec);
        const detail =
          answered === 'rec_not_created'
            ? `A recorrência está ${rec?.status ?? 'desconhecida'}: não há o que autorizar.`
            : `A solicitação está ${current?.status ?? 'desconhecida'}: não há o que responder.`;
        sendProblem(res, 400, 'SolicRecOperacaoInvalida', 'Operação inválida.', detail);
        return;
      }
      await notifyRec(context, [answered.rec]);
      res.json(solicRecView(answered.solicRec, answered.rec, settings));
    });

  router.post('/sandbox/solicrec/:idSolicRec/aceitar', sweep, answer(true));
  router.post('/sandbox/solicrec/:idSolicRec/rejeitar', sweep, answer(false));

  // Journey 2: the payer's bank read the QR code, fetched the recurrence at its location, and the payer answers.
  const answerQr = (accept: boolean) =>
    asyncHandler(async (req: Request, res: Response) => {
      const loc = await findLocRec(context, req, res);
      const body =
        loc &&
        (accept
          ? validateBody(res, acceptSchema, req.body, { ...REC_PROBLEM, prefix: 'aceite' })
          : validateBody(res, rejectSchema, req.body, { ...REC_PROBLEM, prefix: 'rejeicao' }));
      if (!loc || !body) return;
      if (loc.idRec === undefined) {
        sendProblem(res, 404, 'RecPayloadNaoEncontrado', 'Recorrência não encontrada para a location.');
        return;
      }
      const change: RecChange = accept
        ? {
            status: 'APROVADA',
            tipoJornada: 'JORNADA_2',
            pagador: reportedPayer(
              (body as AcceptBody).pagador?.ispbParticipante ?? sandboxPayerIspb(context),
              (body as AcceptBody).pagador,
              (await recs.get(loc.idRec))!.devedor,
            ),
          }
        : { status: 'REJEITADA', encerramento: { rejeicao: rejectionOf(body as RejectBody) } };
      // Checked on the locked row: the receiver may have cancelled it, or moved it off this location, since.
      const answered = await recs.change(loc.idRec, change, clock.now(), (current) =>
        current.status === 'CRIADA' && current.loc?.id === loc.id ? undefined : 'not_created',
      );
      if (typeof answered === 'string') {
        const status = (await recs.get(loc.idRec))?.status ?? 'desconhecida';
        sendProblem(
          res,
          400,
          'RecOperacaoInvalida',
          'Operação inválida.',
          `A recorrência está ${status}: não há o que autorizar.`,
        );
        return;
      }
      await notifyRec(context, [answered.rec]);
      res.json(await recCompletaView(context, answered.rec));
    });

  router.post('/sandbox/locrec/:id/aceitar', sweep, answerQr(true));
  router.post('/sandbox/locrec/:id/rejeitar', sweep, answerQr(false));

  router.post(
    '/sandbox/rec/:idRec/cancelar',
    sweep,
    asyncHandler(async (req, res) => {
      const rec = await findRec(context, req, res);
      const body =
        rec && validateBody(res, payerCancelSchema, req.body, { ...REC_PROBLEM, prefix: 'cancelamento' });
      if (!rec || !body) return;
      const solicitante = body.solicitante ?? 'USUARIO_PAGADOR';
      const codigo = body.codigo ?? 'SLDB';
      const changed = await recs.change(
        rec.idRec,
        {
          status: 'CANCELADA',
          encerramento: {
            cancelamento: {
              solicitante,
              codigo,
              descricao:
                solicitante === 'USUARIO_PAGADOR'
                  ? 'Cancelamento solicitado pelo usuário pagador.'
                  : 'Cancelamento solicitado pelo PSP pagador.',
            },
          },
        },
        clock.now(),
        // The payer cancels what they authorized.
        (current) => (current.status === 'APROVADA' ? undefined : 'not_created'),
      );
      if (typeof changed === 'string') {
        const status = (await recs.get(rec.idRec))?.status ?? rec.status;
        sendProblem(
          res,
          400,
          'RecOperacaoInvalida',
          'Operação inválida.',
          `A recorrência está ${status}: o pagador só cancela uma recorrência APROVADA.`,
        );
        return;
      }
      await notifyRec(context, [changed.rec]);
      res.json(recView(changed.rec, settings));
    }),
  );

  router.get(
    '/sandbox/rec/:idRec/relogio',
    asyncHandler(async (req, res) => {
      await clock.follow();
      const rec = await findRec(context, req, res);
      if (rec) res.json({ hoje: todayOf(recurrenceNow(clock.now(), rec)) });
    }),
  );

  router.post(
    '/sandbox/rec/:idRec/relogio/avancar',
    asyncHandler(async (req, res) => {
      await clock.follow();
      const rec = await findRec(context, req, res);
      const body =
        rec &&
        validateBody(res, recClockSchema, req.body, {
          name: 'RequisicaoInvalida',
          title: 'Requisição inválida.',
          prefix: 'relogio',
        });
      if (!rec || !body) return;
      // What fell due before the move, by the simulator's clock, runs first.
      await runCobrs(context, clock.now(), rec.idRec);
      await expireRecs(context, clock.now(), rec.idRec);
      const today = todayOf(recurrenceNow(clock.now(), (await recs.get(rec.idRec))!));
      if (body.ate < today) {
        const razao = `O campo ate é anterior ao dia de hoje da recorrência (${today}): o relógio não volta.`;
        sendProblem(res, 400, 'RequisicaoInvalida', 'Requisição inválida.', razao, [
          { razao, propriedade: 'relogio.ate' },
        ]);
        return;
      }
      // A day at a time, so each day's events run in order (a cycle debited before the next is due).
      for (let day = dayOf(today)! + 1; day <= dayOf(body.ate)!; day += 1) {
        await recs.moveClock(rec.idRec, clock.now(), new Date(day * DAY_MS + BRASILIA_OFFSET_MS));
        await runCobrs(context, clock.now(), rec.idRec);
        await expireRecs(context, clock.now(), rec.idRec);
      }
      res.json({ hoje: todayOf(recurrenceNow(clock.now(), (await recs.get(rec.idRec))!)) });
    }),
  );

  router.post(
    '/sandbox/rec/:idRec/falhar-proxima',
    sweep,
    asyncHandler(async (req, res) => {
      const rec = await findRec(context, req, res);
      const body =
        rec && validateBody(res, cycleFailureSchema, req.body, { ...REC_PROBLEM, prefix: 'falha' });
      if (!rec || !body) return;
      const marked = await recs.failNextCycle(rec.idRec, body.codigo ?? 'AM02');
      if (typeof marked === 'string') {
        const status = (await recs.get(rec.idRec))?.status ?? rec.status;
        sendProblem(res, 400, 'RecOperacaoInvalida', 'Operação inválida.', `A recorrência está ${status}.`);
        return;
      }
      res.json(recView(marked, settings));
    }),
  );

  return router;
}

const recClockSchema = Joi.object<{ ate: string }>({ ate: isoDate.required() }).unknown(false);
const DAY_MS = 86_400_000;
/** Midnight in Brasília is 03:00 UTC (UTC−03:00, without daylight saving since 2019). */
const BRASILIA_OFFSET_MS = 3 * 3_600_000;

/**
 * What the clock ended, told to the receiver (also run on each move of the clock, and of a recurrence's own clock:
 * `idRec`, only it).
 */
export async function expireRecs(context: SimulatorContext, now: Date, idRec?: string): Promise<void> {
  const ended = await context.recs.expireDue(context.settings.pixKey, now, idRec);
  if (ended.length > 0) await notifyRec(context, ended);
}

/** `POST {webhookrec}/rec` `{recs: [RecNotification]}`, when the receiver registered one. */
async function notifyRec(context: SimulatorContext, changed: StoredRec[]): Promise<void> {
  await notifyRecurrenceWebhook(context, context.recs, 'rec', {
    recs: changed.map((rec) => ({
      idRec: rec.idRec,
      status: rec.status,
      atualizacao: rec.atualizacao,
      ...(rec.encerramento === undefined ? {} : { encerramento: rec.encerramento }),
      ativacao: ativacaoView(rec),
    })),
  });
}

function findRec(context: SimulatorContext, req: Request, res: Response): Promise<StoredRec | undefined> {
  const idRec = req.params.idRec ?? '';
  return findOwn(res, context.settings.pixKey, idRec, {
    pattern: ID_PATTERN,
    read: (id) => context.recs.get(id),
    name: 'RecNaoEncontrada',
    title: 'Recorrência não encontrada.',
    detail: `Nenhuma recorrência com idRec ${idRec}.`,
  });
}

async function findSolicRec(
  context: SimulatorContext,
  req: Request,
  res: Response,
): Promise<{ solicRec: StoredSolicRec; rec: StoredRec } | undefined> {
  const idSolicRec = req.params.idSolicRec ?? '';
  return findOwn(res, context.settings.pixKey, idSolicRec, {
    pattern: ID_PATTERN,
    read: async (id) => {
      const solicRec = await context.recs.getSolicRec(id);
      const rec = solicRec && (await context.recs.get(solicRec.idRec));
      return solicRec && rec && { solicRec, rec, pixKey: rec.pixKey };
    },
    name: 'SolicRecNaoEncontrada',
    title: 'Solicitação de recorrência não encontrada.',
    detail: `Nenhuma solicitação de recorrência com idSolicRec ${idSolicRec}.`,
  });
}

/** The `RecOperacaoInvalida` violations of a PATCH on the recurrence as it is now. */
function revisionViolations(rec: StoredRec, body: RecRevisionBody): Violation[] {
  const violacoes: Violation[] = [];
  const add = (razao: string, propriedade: string) => violacoes.push({ razao, propriedade });
  if (body.loc !== undefined && rec.status !== 'CRIADA')
    add(
      'O campo rec.loc somente pode ser alterado quando a recorrência apresentar-se com o status CRIADA.',
      'rec.loc',
    );
  if (body.calendario?.dataInicial !== undefined) {
    if (rec.status !== 'CRIADA')
      add(
        'O campo rec.calendario.dataInicial somente pode ser alterado quando a recorrência apresentar-se com o status CRIADA.',
        'rec.calendario.dataInicial',
      );
    else if (body.calendario.dataInicial < dateOf(brasiliaDay(rec.criacao)))
      add(
        'O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.',
        'rec.calendario.dataInicial',
      );
    else if (rec.dataFinal !== undefined && body.calendario.dataInicial > rec.dataFinal)
      add(
        'O campo rec.calendario.dataFinal é anterior ao campo rec.calendario.dataInicial.',
        'rec.calendario.dataInicial',
      );
  }
  return violacoes;
}

/**
 * `GET /rec/{idRec}?txid`: a txid names one of the account's charges compatible with the journey (a cobv is not
 * journey 3's), and an immediate one the one the recurrence names for journey 3, when it names one.
 */
async function txidViolation(
  context: SimulatorContext,
  rec: StoredRec,
  txid: unknown,
): Promise<string | { jornada: 'JORNADA_3' | 'JORNADA_4'; location: string }> {
  if (typeof txid !== 'string' || !TXID_PATTERN.test(txid)) return 'O parâmetro txid não respeita o schema.';
  const cob = await context.store.get(txid);
  const cobv = cob === undefined ? await context.cobvs.get(txid) : undefined;
  const chave = cob?.chave ?? cobv?.chave;
  if (chave !== context.settings.pixKey)
    return 'O parâmetro txid não corresponde a uma cobrança deste usuário recebedor.';
  if (cobv !== undefined && rec.tipoJornada === 'JORNADA_3')
    return 'O parâmetro txid não corresponde a uma cobrança compatível com o campo ativacao.tipoJornada.';
  if (cob !== undefined && rec.txidJornada !== undefined && rec.txidJornada !== txid)
    return 'O parâmetro txid corresponde a uma cobrança imediata diferente da informada no campo ativacao.dadosJornada.txid.';
  return cob !== undefined
    ? { jornada: 'JORNADA_3', location: cob.loc.location }
    : { jornada: 'JORNADA_4', location: cobv!.loc.location };
}

function ativacaoView(rec: StoredRec): Record<string, unknown> {
  // `dadosJornada` stays only for journey 3, or until the journey is known.
  const keepsTxid =
    rec.txidJornada !== undefined &&
    (rec.tipoJornada === 'JORNADA_3' || rec.tipoJornada === 'AGUARDANDO_DEFINICAO');
  return { tipoJornada: rec.tipoJornada, ...(keepsTxid ? { dadosJornada: { txid: rec.txidJornada } } : {}) };
}

function recebedorView(rec: StoredRec, settings: SimulatorSettings): Record<string, unknown> {
  return {
    cnpj: settings.cnpj,
    nome: settings.merchantName,
    ...(rec.convenio === undefined ? {} : { convenio: rec.convenio }),
  };
}

/** `RecGerada`: what a POST and a PATCH answer. */
export function recView(rec: StoredRec, settings: SimulatorSettings): Record<string, unknown> {
  return {
    ...recBaseView(rec),
    recebedor: recebedorView(rec, settings),
    status: rec.status,
    ...(rec.loc === undefined ? {} : { loc: { ...rec.loc, idRec: rec.idRec } }),
    atualizacao: rec.atualizacao,
    ...(rec.encerramento === undefined ? {} : { encerramento: rec.encerramento }),
    ativacao: ativacaoView(rec),
  };
}

/** `RecCompleta`: the recurrence with its payer, once approved, and the requests made for it. */
async function recCompletaView(context: SimulatorContext, rec: StoredRec): Promise<Record<string, unknown>> {
  const solicitacoes = await context.recs.solicitacoes(rec.idRec);
  return {
    ...recView(rec, context.settings),
    ...(rec.pagador === undefined ? {} : { pagador: rec.pagador }),
    ...(solicitacoes.length === 0
      ? {}
      : { solicitacao: solicitacoes.map((solicRec) => solicRecView(solicRec, rec, context.settings)) }),
  };
}

/** `SolicRecCompleta`, with the recurrence as the payer's bank is shown it (`recPayload`). */
export function solicRecView(
  solicRec: StoredSolicRec,
  rec: StoredRec,
  settings: SimulatorSettings,
): Record<string, unknown> {
  return {
    idSolicRec: solicRec.idSolicRec,
    idRec: solicRec.idRec,
    calendario: { dataExpiracaoSolicitacao: solicRec.dataExpiracao.toISOString() },
    destinatario: solicRec.destinatario,
    status: solicRec.status,
    atualizacao: solicRec.atualizacao,
    recPayload: recPayloadView(rec, settings),
  };
}

/** `RecPayload`: the recurrence as the payer's bank is shown it (in a request, and at its location). */
function recPayloadView(rec: StoredRec, settings: SimulatorSettings): Record<string, unknown> {
  return {
    ...recBaseView(rec),
    recebedor: { cnpj: settings.cnpj, nome: settings.merchantName, ispbParticipante: receiverIspb(settings) },
    atualizacao: rec.atualizacao,
  };
}

/** The receiver's agent as the ids it mints name it: the first 8 characters of the account holder's CNPJ. */
export function receiverIspb(settings: SimulatorSettings): string {
  return settings.cnpj.slice(0, 8);
}

export type { RecRefusal };

const LOCREC_FILTERS = {
  idRecPresente: Joi.string().valid('true', 'false'),
  convenio: freeText(60),
};

/**
 * The locations of recurrences' payloads (API Pix 2.9.0, scopes `payloadlocationrec.write` / `.read`): `POST /locrec`
 * (the PSP makes one), `GET /locrec` (period, `idRecPresente`, `convenio`, paging), `GET /locrec/:id` and
 * `DELETE /locrec/:id/idRec` (the location no longer serves its recurrence, whose status does not change). A
 * recurrence takes one with `loc` on `POST /rec`, or on `PATCH` while CRIADA.
 */
export function locRecRouter(context: SimulatorContext): Router {
  const { recs, settings, clock } = context;
  const router = express.Router();
  const view = (loc: RecLocation) => ({
    id: loc.id,
    location: loc.location,
    criacao: loc.criacao.toISOString(),
    ...(loc.idRec === undefined ? {} : { idRec: loc.idRec }),
  });
  const find = (req: Request, res: Response) => findLocRec(context, req, res);

  router.post(
    '/locrec',
    TokenIssuer.requireScope('payloadlocationrec.write'),
    asyncHandler(async (req, res) => {
      const loc = await recs.createLocation(
        settings.pixKey,
        `${req.get('host')}${PAYLOAD_PATH}`,
        clock.now(),
      );
      res.status(201).set('location', loc.location).json(view(loc));
    }),
  );

  router.get(
    '/locrec',
    TokenIssuer.requireScope('payloadlocationrec.read'),
    asyncHandler(async (req, res) => {
      const query = readListQuery(res, req.query, 'PayloadLocationRecConsultaInvalida', LOCREC_FILTERS);
      if (!query) return;
      const { filters } = query;
      const { locations, total } = await recs.listLocations({
        pixKey: settings.pixKey,
        inicio: query.inicio,
        fim: query.fim,
        idRecPresente: filters.idRecPresente === undefined ? undefined : filters.idRecPresente === 'true',
        convenio: filters.convenio,
        page: query.paginaAtual,
        perPage: query.itensPorPagina,
      });
      res.json({
        parametros: listParameters(query, total, {
          ...(filters.idRecPresente === undefined ? {} : { idRecPresente: filters.idRecPresente === 'true' }),
          ...(filters.convenio === undefined ? {} : { recebedor: { convenio: filters.convenio } }),
        }),
        loc: locations.map(view),
      });
    }),
  );

  router.get(
    '/locrec/:id',
    TokenIssuer.requireScope('payloadlocationrec.read'),
    asyncHandler(async (req, res) => {
      const loc = await find(req, res);
      if (loc) res.json(view(loc));
    }),
  );

  router.delete(
    '/locrec/:id/idRec',
    TokenIssuer.requireScope('payloadlocationrec.write'),
    asyncHandler(async (req, res) => {
      const loc = await find(req, res);
      if (!loc) return;
      const unlinked = await recs.unlinkLocation(loc.id);
      res.json(view(unlinked!));
    }),
  );

  return router;
}

function findLocRec(
  context: SimulatorContext,
  req: Request,
  res: Response,
): Promise<RecLocation | undefined> {
  const locId = req.params.id ?? '';
  return findOwn(res, context.settings.pixKey, locId, {
    pattern: /^\d{1,15}$/,
    read: (id) => context.recs.getLocation(Number(id)),
    name: 'PayloadLocationRecNaoEncontrado',
    title: 'Location não encontrada.',
    detail: `Nenhuma location com id ${locId}.`,
  });
}

/**
 * The public location of a recurrence, outside API Pix's authenticated prefix: `GET /qr/v2/rec/{recUrlAccessToken}`
 * answers its `RecPayload` as a signed JWS. No recurrence at the location is `RecPayloadNaoEncontrado` (404); one
 * expired, rejected or cancelled, `RecPayloadOperacaoInvalida` (400), as the document lists (it leaves the PSP free
 * to serve those instead: this one refuses).
 */
export function recPayloadRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.get(
    `${PAYLOAD_PATH}/rec/:recUrlAccessToken`,
    asyncHandler(async (req, res) => {
      const rec = await context.recs.getByAccessToken(req.params.recUrlAccessToken ?? '');
      if (!rec) {
        sendProblem(res, 404, 'RecPayloadNaoEncontrado', 'Recorrência não encontrada para a location.');
        return;
      }
      if (rec.status === 'EXPIRADA' || rec.status === 'REJEITADA' || rec.status === 'CANCELADA') {
        sendProblem(
          res,
          400,
          'RecPayloadOperacaoInvalida',
          'Recorrência inválida.',
          'A recorrência em questão encontra-se expirada, cancelada ou rejeitada.',
          [
            {
              razao: 'O campo recUrlAccessToken referencia uma recorrência expirada, rejeitada ou cancelada.',
              propriedade: 'recUrlAccessToken',
            },
          ],
        );
        return;
      }
      const jws = await context.signer.sign(
        recPayloadView(rec, context.settings),
        `http://${req.get('host')}${JWKS_PATH}`,
      );
      res.type('application/jose').send(jws);
    }),
  );
  return router;
}

/**
 * Journey 3: the payer paid the immediate charge a recurrence still CRIADA names (`ativacao.dadosJornada.txid`) by
 * its composed QR, and so authorized the recurrence: APROVADA by JORNADA_3, with the payer as the Pix reports them.
 */
export async function approveByCharge(
  context: SimulatorContext,
  txid: string,
  pix: { endToEndId: string; pagador?: unknown },
): Promise<void> {
  const reported = (pix.pagador ?? {}) as { cpf?: unknown; cnpj?: unknown };
  const approved = await context.recs.approveByCharge(
    context.settings.pixKey,
    txid,
    context.clock.now(),
    (rec) => ({
      ispbParticipante: pix.endToEndId.slice(1, 9),
      ...(typeof reported.cpf === 'string'
        ? { cpf: reported.cpf }
        : typeof reported.cnpj === 'string'
          ? { cnpj: reported.cnpj }
          : rec.devedor.cpf !== undefined
            ? { cpf: rec.devedor.cpf }
            : { cnpj: rec.devedor.cnpj! }),
    }),
  );
  if (approved !== undefined) await notifyRec(context, [approved]);
}
