import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookie, serialize } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import type { SessionData, SessionStore } from '../persistence';

/**
 * The session cookie. In production it is `Secure` and `__Host-` prefixed (HTTPS only, this host only, path `/`);
 * the local sandbox is served over plain http://127.0.0.1, where a `Secure` cookie would not be sent back, so there
 * it goes without. Always HttpOnly (no script reads it) and SameSite=Lax (not sent with another site's POST).
 */
export function sessionCookie(production: boolean): { name: string; secure: boolean } {
  return production
    ? { name: '__Host-dashboard_session', secure: true }
    : { name: 'dashboard_session', secure: false };
}

export interface CurrentSession {
  id: string;
  data: SessionData;
}

const newToken = (): string => randomBytes(32).toString('base64url');

/** Reads, starts and ends sessions; one per app. */
export class Sessions {
  private readonly cookie: { name: string; secure: boolean };

  constructor(
    private readonly store: SessionStore,
    production: boolean,
    private readonly idleSeconds: number,
  ) {
    this.cookie = sessionCookie(production);
  }

  /** Middleware: the session the request's cookie names, when it is live, in `res.locals.session`. */
  load = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const id = parseCookie(req.get('cookie') ?? '')[this.cookie.name];
      const data = id ? await this.store.touch(id) : null;
      if (id && data) res.locals.session = { id, data } satisfies CurrentSession;
      next();
    } catch (err) {
      next(err);
    }
  };

  current(res: Response): CurrentSession | undefined {
    return res.locals.session as CurrentSession | undefined;
  }

  /** The request's session, or a new anonymous one (for the forms before sign-in, which carry a CSRF token too). */
  async ensure(res: Response): Promise<CurrentSession> {
    return this.current(res) ?? this.start(res, {});
  }

  /**
   * A new session under a new id (the old one, if any, is destroyed): at sign-in and sign-up, so an id planted before
   * (session fixation) never becomes a signed-in one.
   */
  async start(
    res: Response,
    who: Pick<SessionData, 'userId' | 'businessId' | 'operator' | 'pendingSignIn'>,
  ): Promise<CurrentSession> {
    const previous = this.current(res);
    if (previous) await this.store.destroy(previous.id);
    const session = {
      id: newToken(),
      data: { csrfToken: newToken(), createdAt: new Date().toISOString(), ...who },
    };
    await this.store.save(session.id, session.data);
    res.locals.session = session;
    res.append(
      'set-cookie',
      serialize(this.cookie.name, session.id, {
        httpOnly: true,
        secure: this.cookie.secure,
        sameSite: 'lax',
        path: '/',
        maxAge: this.idleSeconds,
      }),
    );
    return session;
  }

  async end(res: Response): Promise<void> {
    const session = this.current(res);
    if (session) await this.store.destroy(session.id);
    res.locals.session = undefined;
    res.append(
      'set-cookie',
      serialize(this.cookie.name, '', {
        httpOnly: true,
        secure: this.cookie.secure,
        sameSite: 'lax',
        path: '/',
        maxAge: 0,
      }),
    );
  }
}

/** Whether a form's CSRF token is its session's (compared in constant time). */
export function csrfTokenMatches(session: CurrentSession | undefined, given: unknown): boolean {
  if (!session || typeof given !== 'string') return false;
  const expected = Buffer.from(session.data.csrfToken);
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Whether a state-changing request comes from this site: its Origin (sent by browsers with every POST), when present,
 * names this host. Checked besides the token.
 */
export function sameOrigin(req: Request): boolean {
  const origin = req.get('origin');
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}
