import type { NextFunction, Request, Response } from 'express';
import { GatewayConnectionError, isGatewayError } from '@gateway/sdk';
import type { Logger } from '@gateway/observability';
import { OperatorApiError } from '../clients/gateway-admin';
import { sendPage } from './respond';
import { errorPage } from './views/other';

/**
 * What a page answers for an error no route handled: the gateway's not found, refusal of the key (FORBIDDEN: a
 * restricted key, a scope the key lacks), too many requests and absence each as their own page, whether its public API
 * or its operator API answered them; anything else is logged and answered 500.
 */
export function dashboardErrorHandler(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const viewer = (res.locals.member as { viewer?: never } | undefined)?.viewer;
    if (isGatewayError(err) && err.status === 404)
      return sendPage(res, 404, errorPage(viewer, 'Não encontrado', 'Este item não existe nesta empresa.'));
    if (isGatewayError(err) && err.status === 403)
      return sendPage(
        res,
        403,
        errorPage(viewer, 'Sem permissão', 'O gateway não permite esta ação para esta empresa.'),
      );
    const operatorStatus = err instanceof OperatorApiError ? err.status : undefined;
    if (err instanceof GatewayConnectionError || operatorStatus === 503) {
      // Logged (message only): a wrong gateway address or a gateway down shows here first.
      logger.warn({ err: { message: (err as Error).message } }, 'gateway did not answer');
      return sendPage(
        res,
        503,
        errorPage(viewer, 'Serviço indisponível', 'O gateway não respondeu. Tente de novo em instantes.'),
      );
    }
    if ((isGatewayError(err) && err.status === 429) || operatorStatus === 429)
      return sendPage(
        res,
        429,
        errorPage(viewer, 'Muitas requisições', 'Aguarde alguns segundos e tente de novo.'),
      );
    // Logged by message and code only: an error of the gateway's client carries no key, and nothing else is logged.
    logger.error(
      { err: { message: (err as Error).message, code: (err as { code?: string }).code } },
      'dashboard request failed',
    );
    sendPage(res, 500, errorPage(viewer, 'Algo deu errado', 'Tente de novo em instantes.'));
  };
}
