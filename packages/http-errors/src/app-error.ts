import {
  errorCatalog,
  SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS,
  type ErrorBody,
  type ErrorCode,
} from './codes';

/**
 * A failure with a public error code; anything thrown that is not an AppError becomes INTERNAL_ERROR (or
 * SERVICE_UNAVAILABLE when the error middleware is told it is a dependency's passing fault). A 503 always carries
 * `Retry-After`.
 */
export class AppError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string = errorCatalog[code].message,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = errorCatalog[code].status;
    this.headers =
      this.status === 503 && !('Retry-After' in headers)
        ? { ...headers, 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) }
        : headers;
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

export function missingFields(names: string[]): AppError {
  return new AppError('MISSING_FIELDS', `Campos obrigatórios ausentes: ${names.join(', ')}.`);
}

export function invalidFields(names: string[]): AppError {
  return new AppError('INVALID_FIELDS', `Campos inválidos: ${names.join(', ')}.`);
}
