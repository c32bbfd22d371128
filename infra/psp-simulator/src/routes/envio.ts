import { createHash } from 'node:crypto';
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { toCentavos, toPixAmount } from '../cob-store';
import { type SimulatorContext } from '../context';
import { DEFAULT_ENVIO_FAILURE } from '../envio-rules';
import { type Favorecido, type StoredEnvio } from '../envio-store';
import { sendProblem } from '../problem';
import {
  freeText,
  listParameters,
  pixAmount,
  readListQuery,
  validateBody,
  type ListQuery,
} from './validation';

const ID_ENVIO = /^[a-zA-Z0-9]{1,35}$/;
const END_TO_END_ID = /^E[a-zA-Z0-9]{31}$/;
const noNul = (schema: Joi.StringSchema) => schema.pattern(/^[^\0]*$/, 'sem o caractere NUL');

/**
 * Efí's "envio de Pix" and account balance, the operations of its own beside API Pix (which has no payout), as its
 * documentation describes them:
 * - `PUT /v3/gn/pix/:idEnvio` (scope `pix.send`), https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix/ : sends
 *   `valor` from the account's key (`pagador.chave`, which must have a webhook) to `favorecido.chave` (checking its
 *   holder when `favorecido.cpf`/`cnpj` is given) or to `favorecido.contaBanco`. 201 `{idEnvio, e2eId, valor,
 *   horario: {solicitacao}, status: "EM_PROCESSAMENTO"}`; the outcome (REALIZADO / NAO_REALIZADO) comes by webhook.
 *   A used idEnvio is refused, 409 `id_envio_duplicado`, so the same idEnvio never sends twice.
 * - `GET /v2/gn/pix/enviados?inicio=&fim=` (scope `gn.pix.send.read`), the same page ("Consultar lista de Pix
 *   enviados"): the sends asked for in the period, `{parametros: {inicio, fim, paginacao}, pix: [...]}`, each as the
 *   read of one shows it, paged by `paginacao.paginaAtual` and `paginacao.itensPorPagina` as API Pix lists are.
 * - `GET /v2/gn/pix/enviados/:e2eId` and `GET /v2/gn/pix/enviados/id-envio/:idEnvio` (scope `gn.pix.send.read`): the
 *   send as it stands (its status; the reason of a failure is told in the callback only); 404 problem
 *   `PixEnviadoNaoEncontrado`.
 * - `GET /v2/gn/saldo` (scope `gn.balance.read`), https://dev.efipay.com.br/docs/api-pix/endpoints-exclusivos-efi/ :
 *   `{"saldo": "100.00"}`, with `bloqueios` when `?bloqueios=true`.
 * - The callback, https://dev.efipay.com.br/docs/api-pix/webhooks/ ("Recebendo Callbacks", example "Envio"): `POST
 *   <webhookUrl>/pix` `{pix: [{endToEndId, chave, tipo: "SOLICITACAO", status, valor, horario, gnExtras: {idEnvio,
 *   erro?: {codigo, origem, motivo}}}]}`.
 * Efí's own errors are `{nome, mensagem}`; a body outside the schema is 400 `json_invalido` with `erros`, as Efí
 * answers it. Where the documentation names no error the simulator's wording is its own (marked below).
 */
export function envioRouter(context: SimulatorContext, tokens: TokenIssuer): Router {
  const router = express.Router();
  router.use(['/v3/gn', '/v2/gn'], tokens.requireBearer(), express.json({ limit: '64kb', type: () => true }));

  router.put(
    '/v3/gn/pix/:idEnvio',
    TokenIssuer.requireScope('pix.send'),
    asyncHandler(async (req, res) => {
      const idEnvio = req.params.idEnvio ?? '';
      if (!ID_ENVIO.test(idEnvio))
        return sendJsonInvalido(res, [
          {
            chave: 'pattern',
            caminho: '.params.idEnvio',
            mensagem: 'idEnvio deve ter de 1 a 35 caracteres [a-zA-Z0-9]',
          },
        ]);
      const { value: body, error } = envioSchema.validate(req.body, { abortEarly: false, convert: false });
      if (error)
        return sendJsonInvalido(
          res,
          error.details.map((detail) => ({
            chave: detail.type,
            caminho: ['.body', ...detail.path].join('.'),
            mensagem: detail.message,
          })),
        );
      const valorCentavos = toCentavos(body.valor);
      if (valorCentavos === 0)
        return sendEfiError(res, 400, 'valor_invalido', 'Campo valor deve ser maior que zero');
      const refusal = refusalOf(context, body);
      if (refusal) return sendEfiError(res, 400, ...refusal);
      if ((await context.store.webhook(body.pagador.chave)) === undefined)
        // Efí requires a webhook on the payer's key; its documentation shows no error for its absence (our wording).
        return sendEfiError(
          res,
          400,
          'webhook_nao_encontrado',
          'A chave do pagador não tem webhook associado, necessário para o envio de Pix',
        );
      const now = context.clock.now();
      const envio = await context.envios.request(
        {
          idEnvio,
          pagadorChave: body.pagador.chave,
          valorCentavos,
          ...(body.pagador.infoPagador === undefined ? {} : { infoPagador: body.pagador.infoPagador }),
          favorecido: body.favorecido,
          claimFailure: () => context.envioRules.claim(body.favorecido.chave, toPixAmount(valorCentavos)),
        },
        now,
        new Date(now.getTime() + context.settings.envioSettleMs),
      );
      if (envio === 'id_envio_taken')
        return sendEfiError(
          res,
          409,
          'id_envio_duplicado',
          'O id de envio informado já foi utilizado em outro pagamento',
        );
      // Efí's name, words and status for an account that cannot cover a transaction
      // (https://dev.efipay.com.br/docs/api-open-finance/devolucao/); its envio page lists no such error.
      if (envio === 'insufficient_balance')
        return sendEfiError(
          res,
          422,
          'saldo_insuficiente',
          'O saldo em conta é insuficiente para efetuar esta transação',
        );
      settleEnvioWhenDue(context, envio);
      res.status(201).json({
        idEnvio: envio.idEnvio,
        e2eId: envio.endToEndId,
        valor: toPixAmount(envio.valorCentavos),
        horario: { solicitacao: envio.solicitacao.toISOString() },
        status: envio.status,
      });
    }),
  );

  router.get(
    '/v2/gn/pix/enviados',
    TokenIssuer.requireScope('gn.pix.send.read'),
    asyncHandler(async (req, res) => {
      const query = readEfiListQuery(res, req.query);
      if (!query) return;
      const { envios, total } = await context.envios.listSent(
        context.settings.pixKey,
        query.inicio,
        query.fim,
        query.paginaAtual,
        query.itensPorPagina,
      );
      res.json({ parametros: listParameters(query, total), pix: envios.map(envioView) });
    }),
  );

  router.get(
    '/v2/gn/pix/enviados/id-envio/:idEnvio',
    TokenIssuer.requireScope('gn.pix.send.read'),
    asyncHandler(async (req, res) => {
      const idEnvio = req.params.idEnvio ?? '';
      const envio = ID_ENVIO.test(idEnvio) ? await context.envios.byIdEnvio(idEnvio) : undefined;
      sendEnvio(context, res, envio, 'idEnvio');
    }),
  );

  router.get(
    '/v2/gn/pix/enviados/:e2eId',
    TokenIssuer.requireScope('gn.pix.send.read'),
    asyncHandler(async (req, res) => {
      const e2eId = req.params.e2eId ?? '';
      const envio = END_TO_END_ID.test(e2eId) ? await context.envios.byEndToEndId(e2eId) : undefined;
      sendEnvio(context, res, envio, 'e2eId');
    }),
  );

  router.get(
    '/v2/gn/saldo',
    TokenIssuer.requireScope('gn.balance.read'),
    asyncHandler(async (req, res) => {
      const saldo = toPixAmount(await context.envios.balance(context.settings.pixKey));
      // The simulator never blocks money (MED, court orders): asked for, its blocks are all zero.
      res.json(
        req.query.bloqueios === 'true'
          ? { saldo, bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' } }
          : { saldo },
      );
    }),
  );

  router.use(['/v3/gn', '/v2/gn'], efiErrorHandler(context));
  return router;
}

interface FailureRuleBody {
  chave?: string;
  valor?: string;
  codigo?: string;
  origem?: string;
  motivo?: string;
  quantidade?: number;
}

const failureRuleSchema = Joi.object<FailureRuleBody>({
  chave: noNul(Joi.string().min(1).max(77)),
  valor: pixAmount,
  codigo: Joi.string().pattern(/^[A-Z0-9]{2,8}$/),
  origem: freeText(140),
  motivo: freeText(140),
  quantidade: Joi.number().integer().min(1).max(1000),
})
  .or('chave', 'valor')
  .required();

/**
 * Sandbox only, not Efí:
 * - `POST {prefix}/envio/falhar` `{chave?, valor?, codigo?, origem?, motivo?, quantidade?}` arms the rule
 *   `envioRules.fail` arms in process (for a simulator run as its own process): the next `quantidade` envios (default
 *   every one) to `chave` and/or of `valor` end NAO_REALIZADO with that reason. 201 with the rule.
 * - `POST {prefix}/tarifa` `{valor, descricao?}`: the PSP takes a tariff from the account, as a bank charges for Pix
 *   (it shows in the balance, `GET /v2/gn/saldo`, and in no Pix list). 201 with the tariff and when it was taken.
 */
export function envioSandboxRouter(context: SimulatorContext): Router {
  const router = express.Router();
  router.post('/envio/falhar', (req, res) => {
    const body = validateBody(res, failureRuleSchema, req.body, {
      name: 'RequisicaoInvalida',
      title: 'Regra inválida.',
      prefix: 'regra',
    });
    if (!body) return;
    const failure = {
      ...(body.codigo === undefined ? {} : { codigo: body.codigo }),
      ...(body.origem === undefined ? {} : { origem: body.origem }),
      ...(body.motivo === undefined ? {} : { motivo: body.motivo }),
    };
    context.envioRules.fail({
      ...(body.chave === undefined ? {} : { chave: body.chave }),
      ...(body.valor === undefined ? {} : { valor: body.valor }),
      ...(body.quantidade === undefined ? {} : { count: body.quantidade }),
      failure,
    });
    res.status(201).json({ ...body, erro: { ...DEFAULT_ENVIO_FAILURE, ...failure } });
  });
  router.post(
    '/tarifa',
    asyncHandler(async (req, res) => {
      const body = validateBody(res, tariffSchema, req.body, {
        name: 'RequisicaoInvalida',
        title: 'Tarifa inválida.',
        prefix: 'tarifa',
      });
      if (!body) return;
      const cobradaEm = context.clock.now();
      await context.envios.chargeTariff(
        context.settings.pixKey,
        toCentavos(body.valor),
        body.descricao ?? null,
        cobradaEm,
      );
      res.status(201).json({ ...body, cobradaEm: cobradaEm.toISOString() });
    }),
  );
  return router;
}

const tariffSchema = Joi.object<{ valor: string; descricao?: string }>({
  valor: pixAmount.required(),
  descricao: freeText(140),
}).required();

/**
 * Settles an envio at its time (REALIZADO, or NAO_REALIZADO as a sandbox rule planned), then tells the webhook of the
 * payer's key. Settling is one conditional update, so an envio is settled once, also across a restart; its callback is
 * owed in the books until accepted (`EnvioNotifier`), so a restart tells what it had not told.
 */
export function settleEnvioWhenDue(
  context: SimulatorContext,
  envio: { idEnvio: string; settlesAt: Date },
): void {
  context.settlements.schedule(envio.settlesAt, () => settle(context, envio.idEnvio), {
    idEnvio: envio.idEnvio,
  });
}

async function settle(context: SimulatorContext, idEnvio: string): Promise<void> {
  const envio = await context.envios.settle(idEnvio, context.clock.now());
  if (envio === undefined) return;
  context.envioNotifier.notify(envio.idEnvio);
}

/** One item of the send's callback, as Efí's "Envio" example shows it (`horario` null when it was not made). */
export function envioCallback(envio: StoredEnvio): Record<string, unknown> {
  return {
    endToEndId: envio.endToEndId,
    chave: envio.pagadorChave,
    tipo: 'SOLICITACAO',
    status: envio.status,
    valor: toPixAmount(envio.valorCentavos),
    horario: envio.liquidacao?.toISOString() ?? null,
    ...(envio.infoPagador === undefined ? {} : { infoPagador: envio.infoPagador }),
    gnExtras: { idEnvio: envio.idEnvio, ...(envio.erro === undefined ? {} : { erro: envio.erro }) },
  };
}

/**
 * A send as Efí's reads return it (the envio page's examples): the destination key with its holder
 * (`identificacao: {nome, cpf}`, the CPF masked) or the bank account (`contaBanco: {nome, cpf, agencia, conta,
 * tipoConta}`, masked, the account type in words, no `codigoBanco`), and no failure reason (Efí tells it in the
 * callback only).
 */
function envioView(envio: StoredEnvio): Record<string, unknown> {
  return {
    endToEndId: envio.endToEndId,
    idEnvio: envio.idEnvio,
    valor: toPixAmount(envio.valorCentavos),
    chave: envio.pagadorChave,
    status: envio.status,
    ...(envio.infoPagador === undefined ? {} : { infoPagador: envio.infoPagador }),
    horario: {
      solicitacao: envio.solicitacao.toISOString(),
      ...(envio.liquidacao === undefined ? {} : { liquidacao: envio.liquidacao.toISOString() }),
    },
    favorecido: favorecidoView(envio.favorecido),
  };
}

// The simulator has no DICT: a key's holder is its document when the key is one (or the one the send named),
// else a document made up from the key (the same each time), under one made-up name.
const SIMULATED_HOLDER = 'FAVORECIDO SIMULADO';

function favorecidoView(favorecido: Favorecido): Record<string, unknown> {
  const { chave, cpf, cnpj, contaBanco } = favorecido;
  if (chave === undefined) {
    const account = contaBanco ?? {};
    return {
      contaBanco: {
        nome: account.nome,
        ...documentView(account.cpf, account.cnpj),
        agencia: account.agencia,
        conta: account.conta,
        tipoConta: account.tipoConta === 'svgs' ? 'poupanca' : 'corrente',
      },
    };
  }
  const keyCpf = /^\d{11}$/.test(chave) ? chave : undefined;
  const keyCnpj = /^\d{14}$/.test(chave) ? chave : undefined;
  const document =
    cpf ??
    cnpj ??
    keyCpf ??
    keyCnpj ??
    String(
      BigInt(`0x${createHash('sha256').update(chave).digest('hex').slice(0, 12)}`) % 10n ** 11n,
    ).padStart(11, '0');
  return {
    chave,
    identificacao: {
      nome: SIMULATED_HOLDER,
      ...(document.length === 14 ? documentView(undefined, document) : documentView(document, undefined)),
    },
  };
}

/** A CPF as Efí masks it (`***.456.789-**`), a CNPJ alike (`**.345.678/0001-**`). */
function documentView(cpf: string | undefined, cnpj: string | undefined): Record<string, string> {
  if (cpf !== undefined) return { cpf: `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**` };
  if (cnpj !== undefined)
    return { cnpj: `**.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-**` };
  return {};
}

function sendEnvio(
  context: SimulatorContext,
  res: Response,
  envio: StoredEnvio | undefined,
  by: 'e2eId' | 'idEnvio',
): void {
  // Another account's send is none of this client's business: not found, as for an unknown one.
  if (envio !== undefined && envio.pagadorChave === context.settings.pixKey) {
    res.json(envioView(envio));
    return;
  }
  sendProblem(
    res,
    404,
    'PixEnviadoNaoEncontrado',
    'Não Encontrado',
    `Pix enviado não encontrado para o ${by} informado.`,
  );
}

interface EnvioBody {
  valor: string;
  pagador: { chave: string; infoPagador?: string };
  favorecido: Favorecido;
}

// The attributes Efí documents for the request, and no others (Efí refuses additional properties).
const envioSchema = Joi.object<EnvioBody>({
  valor: Joi.string()
    .pattern(/^\d{1,10}\.\d{2}$/)
    .required(),
  pagador: Joi.object({
    chave: noNul(Joi.string().min(1).max(77)).required(),
    infoPagador: freeText(140),
  }).required(),
  favorecido: Joi.object({
    chave: noNul(Joi.string().min(1).max(77)),
    cpf: Joi.string().pattern(/^\d{11}$/),
    cnpj: Joi.string().pattern(/^\d{14}$/),
    contaBanco: Joi.object({
      nome: noNul(Joi.string().min(1).max(200)).required(),
      cpf: Joi.string().pattern(/^\d{11}$/),
      cnpj: Joi.string().pattern(/^\d{14}$/),
      codigoBanco: Joi.string()
        .pattern(/^\d{8}$/)
        .required(),
      agencia: Joi.string()
        .pattern(/^\d{1,4}$/)
        .required(),
      conta: Joi.string()
        .pattern(/^\d{1,20}$/)
        .required(),
      tipoConta: Joi.string().valid('cacc', 'svgs').required(),
    }).oxor('cpf', 'cnpj'),
  })
    .xor('chave', 'contaBanco')
    .oxor('cpf', 'cnpj')
    .with('cpf', 'chave')
    .with('cnpj', 'chave')
    .required(),
}).required();

// The forms of a DICT key: CPF, CNPJ, e-mail, phone (+55...), random (EVP).
const PIX_KEY_FORMS = [
  /^\d{11}$/,
  /^\d{14}$/,
  /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  /^\+[1-9]\d{1,14}$/,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
];

/** Efí's refusals of a send that fits the schema: the payer's key not the account's, a bad or foreign destination. */
function refusalOf(context: SimulatorContext, body: EnvioBody): [nome: string, mensagem: string] | undefined {
  if (body.pagador.chave !== context.settings.pixKey)
    return ['chave_invalida', 'A chave informada não faz referência à conta Efí autenticada'];
  const { chave, cpf, cnpj } = body.favorecido;
  if (chave === undefined) return undefined;
  if (!PIX_KEY_FORMS.some((form) => form.test(chave)))
    // Efí refuses a destination key that does not exist with a "chave inválida" error (our wording of it).
    return ['chave_invalida', 'A chave do favorecido não é uma chave Pix válida'];
  // The simulator has no DICT: a CPF or CNPJ key belongs to that document, whose holder it knows; others pass.
  const keyDocument = /^\d{11}$|^\d{14}$/.test(chave) ? chave : undefined;
  if (cpf !== undefined && keyDocument !== undefined && keyDocument !== cpf)
    return [
      'chave_nao_pertence_ao_documento',
      'O cpf do favorecido é diferente do documento em posse da chave',
    ];
  if (cnpj !== undefined && keyDocument !== undefined && keyDocument !== cnpj)
    return [
      'chave_nao_pertence_ao_documento',
      'O cnpj do favorecido é diferente do documento em posse da chave',
    ];
  return undefined;
}

interface JsonInvalidoItem {
  chave: string;
  caminho: string;
  mensagem: string;
}

/** A period list's query (`inicio`, `fim`, `paginacao`), refused in Efí's own form, as a body outside its schema is. */
export function readEfiListQuery(res: Response, query: unknown): ListQuery | undefined {
  return readListQuery(res, query, (violacoes) =>
    sendJsonInvalido(
      res,
      violacoes.map((violacao) => ({
        chave: 'query',
        caminho: `.query.${violacao.propriedade}`,
        mensagem: violacao.razao,
      })),
    ),
  );
}

export function sendJsonInvalido(res: Response, erros: JsonInvalidoItem[]): void {
  sendEfiError(res, 400, 'json_invalido', 'Valores ou tipos de campo inválidos', erros);
}

/** Efí's error form: `{nome, mensagem}`, `erros` listing what broke the schema. */
export function sendEfiError(
  res: Response,
  status: number,
  nome: string,
  mensagem: string,
  erros?: JsonInvalidoItem[],
): void {
  res.status(status).json({ nome, mensagem, ...(erros === undefined ? {} : { erros }) });
}

/** A body that is no JSON, too large, or a path that cannot be decoded: `json_invalido`; anything else a 500. */
export function efiErrorHandler(context: SimulatorContext): ErrorRequestHandler {
  return (error: { type?: string; status?: number }, req: Request, res: Response, _next) => {
    if (error.status !== undefined && error.status >= 400 && error.status < 500) {
      sendJsonInvalido(res, [
        { chave: error.type ?? 'invalid', caminho: '.body', mensagem: 'A requisição não pôde ser lida' },
      ]);
      return;
    }
    context.logger.error({ err: error, method: req.method, path: req.path }, 'psp simulator failure');
    sendEfiError(res, 500, 'erro_aplicacao', 'Ocorreu um erro ao processar a requisição');
  };
}
