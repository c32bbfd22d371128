import { type Request, type Response } from 'express';

export interface Violation {
  razao: string;
  propriedade: string;
}

/** Error types the API Pix document lists (2.9.0, "Tratamento de erros"), under `https://pix.bcb.gov.br/api/v2/error/`. */
export type ProblemName =
  | 'RequisicaoInvalida'
  | 'AcessoNegado'
  | 'NaoEncontrado'
  | 'ErroInternoDoServidor'
  | 'ServicoIndisponivel'
  | 'CobPayloadNaoEncontrado'
  | 'CobOperacaoInvalida'
  | 'CobNaoEncontrado'
  | 'CobPayloadOperacaoInvalida'
  | 'CobVNaoEncontrada'
  | 'CobVOperacaoInvalida'
  | 'CobVConsultaInvalida'
  | 'PayloadLocationOperacaoInvalida'
  | 'PayloadLocationNaoEncontrado'
  | 'PixNaoEncontrado'
  | 'PixDevolucaoNaoEncontrada'
  | 'PixDevolucaoInvalida'
  | 'PixConsultaInvalida'
  // Efí's, for its reads of sent Pix (https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix/).
  | 'PixEnviadoNaoEncontrado'
  | 'WebhookOperacaoInvalida'
  | 'WebhookNaoEncontrado'
  // Pix Automático (API Pix 2.9.0, tags Rec, SolicRec and WebhookRec).
  | 'RecNaoEncontrada'
  | 'RecOperacaoInvalida'
  | 'RecConsultaInvalida'
  | 'SolicRecNaoEncontrada'
  | 'SolicRecOperacaoInvalida'
  | 'WebhookRecOperacaoInvalida'
  | 'CobRNaoEncontrado'
  | 'CobROperacaoInvalida'
  | 'CobRConsultaInvalida'
  | 'WebhookCobROperacaoInvalida'
  | 'PayloadLocationRecNaoEncontrado'
  | 'PayloadLocationRecConsultaInvalida'
  | 'RecPayloadNaoEncontrado'
  | 'RecPayloadOperacaoInvalida';

export interface PathIdRule {
  param: string;
  pattern: RegExp;
  problem: ProblemName;
  title: string;
  detail: string;
  /** Where the violation is, as `violacoes[].propriedade` names it. */
  property: string;
}

/** A path id that matches its rule, or undefined once the operation's 400 problem has been sent. */
export function readPathId(req: Request, res: Response, rule: PathIdRule): string | undefined {
  const id = req.params[rule.param] ?? '';
  if (rule.pattern.test(id)) return id;
  sendProblem(res, 400, rule.problem, rule.title, rule.detail, [
    { razao: `${rule.param} não respeita o schema.`, propriedade: rule.property },
  ]);
  return undefined;
}

/**
 * The account's own record a path id names, or undefined once the operation's 404 (`name`, `title`, `detail`) is sent:
 * an id off its `pattern`, none in the books, or another account's (books shared by two simulators) is not found.
 */
export async function findOwn<T extends { pixKey: string }>(
  res: Response,
  pixKey: string,
  id: string,
  lookup: {
    pattern: RegExp;
    read: (id: string) => Promise<T | undefined>;
    name: ProblemName;
    title: string;
    detail: string;
  },
): Promise<T | undefined> {
  const found = lookup.pattern.test(id) ? await lookup.read(id) : undefined;
  if (found && found.pixKey === pixKey) return found;
  sendProblem(res, 404, lookup.name, lookup.title, lookup.detail);
  return undefined;
}

/** Refuses a request (400) with the operation's problem and its violations, the first one's `razao` as the detail. */
export function sendViolations(
  res: Response,
  problem: { name: ProblemName; title: string },
  violacoes: Violation[],
  detail = violacoes[0]?.razao,
): void {
  sendProblem(res, 400, problem.name, problem.title, detail, violacoes);
}

/** Sends an RFC 7807 problem the way API Pix v2 does (`application/problem+json`, optional `violacoes`). */
export function sendProblem(
  res: Response,
  status: number,
  name: ProblemName,
  title: string,
  detail?: string,
  violacoes?: Violation[],
): void {
  res
    .status(status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: `https://pix.bcb.gov.br/api/v2/error/${name}`,
        title,
        status,
        detail,
        violacoes,
      }),
    );
}
