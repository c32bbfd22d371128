import { randomBytes } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { runDueFirst } from '../clock';
import { type SimulatorContext } from '../context';
import { notifyRecurrenceWebhook, recurrenceWebhookRoutes } from './recurrence-webhook';
import { brasiliaDay, dateOf, dayOf } from '../business-days';
import { toCentavos } from '../cob-store';
import { type CobrEvent, type CobrRecebedor, MIN_NOTICE_DAYS, type StoredCobr } from '../cobr-store';
import { type Violation, findOwn, sendProblem, sendViolations } from '../problem';
import { pixView } from '../context';
import {
  DEBTOR_FILTERS,
  SCHEMA_MESSAGES,
  TXID_PATTERN,
  cancellationSchema,
  freeText,
  givenFilters,
  isoDate,
  listParameters,
  pixAmount,
  readListQuery,
  validateBody,
} from './validation';

/** The receiving account of the sandbox (agência and conta a cobr's `recebedor` must name). */
export const SANDBOX_ACCOUNT = { agencia: '0001', conta: '1234567', tipoConta: 'CORRENTE' } as const;

interface CobrBody {
  idRec: string;
  infoAdicional?: string;
  calendario: { dataDeVencimento: string };
  valor: { original: string };
  ajusteDiaUtil: boolean;
  devedor?: Record<string, string>;
  recebedor: CobrRecebedor;
}

// `CobRSolicitada`: idRec, calendario.dataDeVencimento, valor.original, recebedor (conta, tipoConta, agencia),
// ajusteDiaUtil (required by `CobRBase`: its default describes the PSP's behaviour, not an optional field), infoAdicional and the debtor's contact and address.
const cobrBodySchema = Joi.object<CobrBody>({
  idRec: Joi.string()
    .pattern(/^[a-zA-Z0-9]{29}$/)
    .required(),
  infoAdicional: freeText(140),
  calendario: Joi.object({ dataDeVencimento: isoDate.required() }).unknown(true).required(),
  valor: Joi.object({ original: pixAmount.required() }).unknown(true).required(),
  ajusteDiaUtil: Joi.boolean().required(),
  devedor: Joi.object({
    email: freeText(254),
    logradouro: freeText(200),
    cidade: freeText(200),
    uf: freeText(2),
    cep: freeText(9),
  }).unknown(false),
  recebedor: Joi.object({
    conta: freeText(20).min(1).required(),
    tipoConta: Joi.string().valid('CORRENTE', 'POUPANCA', 'PAGAMENTO').required(),
    agencia: freeText(4),
  })
    .unknown(true)
    .required(),
})
  .unknown(true)
  .messages(SCHEMA_MESSAGES);

const LIST_FILTERS = {
  idRec: Joi.string().pattern(/^[a-zA-Z0-9]{29}$/),
  ...DEBTOR_FILTERS,
  status: Joi.string().valid('CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'),
  convenio: freeText(60),
};

const COBR_PROBLEM = { name: 'CobROperacaoInvalida', title: 'Operação inválida.', prefix: 'cobr' } as const;
const TXID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Pix Automático's cycles at the receiving PSP (API Pix 2.9.0): `PUT|PATCH|GET /cobr/:txid`, `POST|GET /cobr`,
 * `POST /cobr/:txid/retentativa/:data` (scopes `cobr.write`, `cobr.read`) and `PUT|GET|DELETE /webhookcobr`
 * (`webhookcobr.*`). A cycle of an approved recurrence is sent to the payer's bank within 10 days of its due date
 * (ATIVA, its attempt AGENDADA) and debited on its day by its recurrence's clock (the simulator's, moved by the
 * recurrence's own sandbox offset); each change is told to
 * `{webhookcobr}/cobr`, and a payment to `{webhook}/pix` as for a cob.
 */
export function cobrRouter(context: SimulatorContext): Router {
  const { cobrs, settings, clock } = context;
  const router = express.Router();
  const sweep = runDueFirst(clock, (now) => runCobrs(context, now));

  const create = (txidOf: (req: Request) => string | undefined) =>
    asyncHandler(async (req: Request, res: Response) => {
      const txid = txidOf(req);
      if (txid === undefined) {
        const razao = 'O txid deve ter de 26 a 35 caracteres [a-zA-Z0-9].';
        return sendViolations(res, COBR_PROBLEM, [{ razao, propriedade: 'cobr.txid' }]);
      }
      const body = validateBody(res, cobrBodySchema, req.body, COBR_PROBLEM);
      if (!body) return;
      const violacoes: Violation[] = [];
      if (
        body.recebedor.conta !== SANDBOX_ACCOUNT.conta ||
        (body.recebedor.agencia !== undefined && body.recebedor.agencia !== SANDBOX_ACCOUNT.agencia)
      )
        violacoes.push({
          razao:
            'Os campos cobr.recebedor.conta e cobr.recebedor.agencia correspondem a uma conta que não pertence a este usuário recebedor.',
          propriedade: 'cobr.recebedor',
        });
      if (violacoes.length > 0) return sendViolations(res, COBR_PROBLEM, violacoes);
      const created = await cobrs.create(
        settings.pixKey,
        txid,
        {
          idRec: body.idRec,
          dataDeVencimento: body.calendario.dataDeVencimento,
          valorCentavos: toCentavos(body.valor.original),
          ajusteDiaUtil: body.ajusteDiaUtil,
          ...(body.infoAdicional === undefined ? {} : { infoAdicional: body.infoAdicional }),
          ...(body.devedor === undefined ? {} : { devedor: body.devedor }),
          recebedor: {
            ...(body.recebedor.agencia === undefined ? {} : { agencia: body.recebedor.agencia }),
            conta: body.recebedor.conta,
            tipoConta: body.recebedor.tipoConta,
          },
        },
        clock.now(),
      );
      if (typeof created === 'string') {
        const [razao, propriedade] = {
          rec_not_found: [
            'O campo cobr.idRec não corresponde a uma recorrência deste usuário recebedor.',
            'cobr.idRec',
          ],
          rec_not_approved: ['A recorrência referenciada por cobr.idRec não está APROVADA.', 'cobr.idRec'],
          txid_taken: ['O campo cobr.txid encontra-se em uso.', 'cobr.txid'],
          cycle_taken: [
            'Existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo cobr.idRec com calendario.dataDeVencimento no mesmo ciclo.',
            'cobr.calendario.dataDeVencimento',
          ],
          before_today: [
            'O campo cobr.calendario.dataDeVencimento é anterior à data de criação da cobrança.',
            'cobr.calendario.dataDeVencimento',
          ],
          too_close: [
            `O campo cobr.calendario.dataDeVencimento deve estar ao menos ${MIN_NOTICE_DAYS} dias após a data de criação da cobrança.`,
            'cobr.calendario.dataDeVencimento',
          ],
          before_first: [
            'O campo cobr.calendario.dataDeVencimento é anterior ao campo calendario.dataInicial da recorrência.',
            'cobr.calendario.dataDeVencimento',
          ],
          after_last: [
            'O campo cobr.calendario.dataDeVencimento é posterior ao campo calendario.dataFinal da recorrência.',
            'cobr.calendario.dataDeVencimento',
          ],
          not_fixed_amount: [
            'O campo cobr.valor.original é diferente do campo valor.valorRec da recorrência.',
            'cobr.valor.original',
          ],
        }[created] as [string, string];
        return sendViolations(res, COBR_PROBLEM, [{ razao, propriedade }]);
      }
      await notifyCobr(context, [{ cobr: created }]);
      res.status(201).json(cobrView(created, context));
    });

  router.put(
    '/cobr/:txid',
    TokenIssuer.requireScope('cobr.write'),
    sweep,
    create((req) => (TXID_PATTERN.test(req.params.txid ?? '') ? req.params.txid : undefined)),
  );
  // The PSP chooses the txid (32 alphanumerics).
  router.post(
    '/cobr',
    TokenIssuer.requireScope('cobr.write'),
    sweep,
    create(() => Array.from(randomBytes(32), (byte) => TXID_ALPHABET[byte % TXID_ALPHABET.length]).join('')),
  );

  router.patch(
    '/cobr/:txid',
    TokenIssuer.requireScope('cobr.write'),
    sweep,
    asyncHandler(async (req, res) => {
      const cobr = await findCobr(context, req, res);
      const body = cobr && validateBody(res, cancellationSchema, req.body, COBR_PROBLEM);
      if (!cobr || !body) return;
      const cancelled = await cobrs.cancel(cobr.txid, clock.now());
      if (typeof cancelled === 'string') {
        const razao =
          cancelled === 'too_late'
            ? 'Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.'
            : `A cobrança está ${(await cobrs.get(cobr.txid))?.status ?? cobr.status} e não pode ser cancelada.`;
        return sendViolations(res, COBR_PROBLEM, [{ razao, propriedade: 'cobr.status' }]);
      }
      await notifyCobr(context, [{ cobr: cancelled }]);
      res.json(cobrView(cancelled, context));
    }),
  );

  router.get(
    '/cobr/:txid',
    TokenIssuer.requireScope('cobr.read'),
    sweep,
    asyncHandler(async (req, res) => {
      const cobr = await findCobr(context, req, res);
      if (cobr) res.json(cobrView(cobr, context));
    }),
  );

  router.get(
    '/cobr',
    TokenIssuer.requireScope('cobr.read'),
    sweep,
    asyncHandler(async (req, res) => {
      const query = readListQuery(res, req.query, 'CobRConsultaInvalida', LIST_FILTERS);
      if (!query) return;
      const { filters } = query;
      const { cobrs: found, total } = await cobrs.list({
        pixKey: settings.pixKey,
        inicio: query.inicio,
        fim: query.fim,
        idRec: filters.idRec,
        cpf: filters.cpf,
        cnpj: filters.cnpj,
        status: filters.status,
        convenio: filters.convenio,
        page: query.paginaAtual,
        perPage: query.itensPorPagina,
      });
      res.json({
        parametros: listParameters(query, total, givenFilters(filters)),
        cobsr: found.map((cobr) => cobrView(cobr, context)),
      });
    }),
  );

  router.post(
    '/cobr/:txid/retentativa/:data',
    TokenIssuer.requireScope('cobr.write'),
    sweep,
    asyncHandler(async (req, res) => {
      const cobr = await findCobr(context, req, res);
      if (!cobr) return;
      // The operation declares no request body.
      if (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined)
        return sendViolations(res, COBR_PROBLEM, [
          { razao: 'A operação não recebe corpo de requisição.', propriedade: 'body' },
        ]);
      const data = req.params.data ?? '';
      if (dayOf(data) === undefined)
        return sendViolations(res, COBR_PROBLEM, [
          { razao: 'O parâmetro data deve ser uma data YYYY-MM-DD que exista.', propriedade: 'data' },
        ]);
      const retried = await cobrs.retry(cobr.txid, data, clock.now());
      if (typeof retried === 'string') {
        const razao = {
          not_found: 'Cobrança não encontrada.',
          not_active: 'A cobrança não está ATIVA.',
          policy: 'A política configurada na recorrência não permite retentativa de cobrança.',
          pending: 'Existe uma tentativa com status SOLICITADA ou AGENDADA.',
          not_future: 'O parâmetro data não corresponde a uma data futura.',
          too_late: 'O parâmetro data é posterior ao sétimo dia após o vencimento (PERMITE_3R_7D).',
          too_many: 'A cobrança já teve as três retentativas que a política PERMITE_3R_7D admite.',
        }[retried];
        return sendViolations(res, COBR_PROBLEM, [{ razao, propriedade: 'data' }]);
      }
      await notifyCobr(context, [{ cobr: retried }]);
      res.status(201).json(cobrView(retried, context));
    }),
  );

  recurrenceWebhookRoutes(router, context, {
    name: 'webhookcobr',
    problem: 'WebhookCobROperacaoInvalida',
    books: cobrs,
  });

  return router;
}

const FAILURE_CODES = [
  'AB10',
  'AC05',
  'AC06',
  'AM02',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'DTNT',
  'FBRD',
  'IRNT',
  'MIDI',
  'MSUC',
  'NIEC',
  'NIPA',
  'NITX',
  'QUNT',
  'RC09',
  'UDEI',
] as const;
export const cycleFailureSchema = Joi.object<{ codigo?: string }>({
  codigo: Joi.string().valid(...FAILURE_CODES),
}).unknown(false);

/**
 * The sandbox payer's bank for cycles, not part of API Pix: `POST {prefix}/sandbox/cobr/:txid/falhar` `{codigo?}`
 * makes the cycle's next attempt fail (default `AM02`, told as a lack of funds), kept in the books until it does. By
 * default every attempt pays.
 */
export function cobrSandboxRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.post(
    '/sandbox/cobr/:txid/falhar',
    asyncHandler(async (req, res) => {
      const cobr = await findCobr(context, req, res);
      const body =
        cobr && validateBody(res, cycleFailureSchema, req.body, { ...COBR_PROBLEM, prefix: 'falha' });
      if (!cobr || !body) return;
      const marked = await context.cobrs.failNext(cobr.txid, body.codigo ?? 'AM02');
      if (typeof marked === 'string') {
        sendProblem(
          res,
          400,
          'CobROperacaoInvalida',
          'Operação inválida.',
          `A cobrança está ${cobr.status}.`,
        );
        return;
      }
      res.json(cobrView(marked, context));
    }),
  );
  return router;
}

/**
 * What the clock made due (sending, debits, expiry), told to the receiver; also run on each move of the clock, and of a
 * recurrence's own clock (`idRec`: only its cycles).
 */
export async function runCobrs(context: SimulatorContext, now: Date, idRec?: string): Promise<void> {
  const events = await context.cobrs.runDue(context.settings.pixKey, now, idRec);
  if (events.length > 0) await notifyCobr(context, events);
}

/** `POST {webhookcobr}/cobr` `{cobsr}`, and `POST {webhook}/pix` for the cycles paid. */
async function notifyCobr(context: SimulatorContext, events: CobrEvent[]): Promise<void> {
  const { settings, cobrs, store, callbacks } = context;
  const paid = events.flatMap((event) => (event.pix === undefined ? [] : [event.pix]));
  const pixWebhook = paid.length > 0 ? await store.webhook(settings.pixKey) : undefined;
  if (pixWebhook !== undefined) callbacks.dispatch(pixWebhook.webhookUrl, paid.map(pixView));
  await notifyRecurrenceWebhook(context, cobrs, 'cobr', {
    cobsr: events.map(({ cobr }) => ({
      idRec: cobr.idRec,
      txid: cobr.txid,
      status: cobr.status,
      atualizacao: cobr.atualizacao,
      ...(cobr.encerramento === undefined ? {} : { encerramento: cobr.encerramento }),
      ...(cobr.tentativas.length === 0 ? {} : { tentativas: cobr.tentativas }),
      ...(cobr.pix.length === 0 ? {} : { pix: cobr.pix.map(pixAutomaticoView) }),
    })),
  });
}

function findCobr(context: SimulatorContext, req: Request, res: Response): Promise<StoredCobr | undefined> {
  const txid = req.params.txid ?? '';
  return findOwn(res, context.settings.pixKey, txid, {
    pattern: TXID_PATTERN,
    read: (id) => context.cobrs.get(id),
    name: 'CobRNaoEncontrado',
    title: 'Cobrança não encontrada.',
    detail: `Nenhuma cobrança recorrente com txid ${txid}.`,
  });
}

function pixAutomaticoView(pix: StoredCobr['pix'][number]): Record<string, unknown> {
  return { endToEndId: pix.endToEndId, txid: pix.txid, valor: pix.valor, horario: pix.horario };
}

/** `CobRCompleta` (also what a PUT, a POST and a PATCH answer). */
export function cobrView(cobr: StoredCobr, context: SimulatorContext): Record<string, unknown> {
  const { settings } = context;
  return {
    idRec: cobr.idRec,
    txid: cobr.txid,
    ...(cobr.infoAdicional === undefined ? {} : { infoAdicional: cobr.infoAdicional }),
    calendario: { criacao: dateOf(brasiliaDay(cobr.criacao)), dataDeVencimento: cobr.dataDeVencimento },
    valor: {
      original: `${Math.floor(cobr.valorCentavos / 100)}.${String(cobr.valorCentavos % 100).padStart(2, '0')}`,
    },
    ajusteDiaUtil: cobr.ajusteDiaUtil,
    ...(cobr.devedor === undefined ? {} : { devedor: cobr.devedor }),
    recebedor: { cnpj: settings.cnpj, nome: settings.merchantName, ...cobr.recebedor },
    status: cobr.status,
    politicaRetentativa: cobr.politicaRetentativa,
    atualizacao: cobr.atualizacao,
    ...(cobr.encerramento === undefined ? {} : { encerramento: cobr.encerramento }),
    ...(cobr.tentativas.length === 0 ? {} : { tentativas: cobr.tentativas }),
    ...(cobr.pix.length === 0 ? {} : { pix: cobr.pix.map(pixAutomaticoView) }),
  };
}
