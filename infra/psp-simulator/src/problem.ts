import { type Response } from 'express';

export interface Violation {
  razao: string;
  propriedade: string;
}

/** Error names as API Pix v2 publishes them under `https://pix.bcb.gov.br/api/v2/error/`. */
export type ProblemName =
  | 'RequisicaoInvalida'
  | 'NaoAutorizado'
  | 'AcessoNegado'
  | 'NaoEncontrado'
  | 'CobOperacaoInvalida'
  | 'CobNaoEncontrado'
  | 'WebhookOperacaoInvalida'
  | 'WebhookNaoEncontrado'
  | 'PayloadLocationOperacaoInvalida'
  | 'PayloadLocationNaoEncontrado'
  | 'ErroInternoDoServidor';

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
