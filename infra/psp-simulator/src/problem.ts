import { type Response } from 'express';

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
  | 'PayloadLocationOperacaoInvalida'
  | 'PayloadLocationNaoEncontrado'
  | 'PixNaoEncontrado'
  | 'PixDevolucaoNaoEncontrada'
  | 'PixDevolucaoInvalida'
  | 'WebhookOperacaoInvalida'
  | 'WebhookNaoEncontrado';

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
