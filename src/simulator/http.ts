/** Error bodies and status phrases, as the real API (NestJS) writes them: `{ message, statusCode, error }`. */
import type { ErrorBody } from './types.js';

export const reasonPhrases: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return reasonPhrases[status] ?? 'Error';
}

/**
 * Thrown by handlers and validators; the server turns it into the error body. `message` is an array
 * for field validation (one entry per failed rule, as NestJS's ValidationPipe does) and a string
 * otherwise, so clients meet both forms.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string | string[], headers: Record<string, string> = {}) {
    super(Array.isArray(message) ? message.join('; ') : message);
    this.name = 'HttpError';
    this.status = status;
    this.body = { message, statusCode: status, error: reasonPhrase(status) };
    this.headers = headers;
  }
}

export function badRequest(message: string | string[]): HttpError {
  return new HttpError(400, message);
}

export function notFound(message: string): HttpError {
  return new HttpError(404, message);
}
