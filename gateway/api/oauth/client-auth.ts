import { TrawlError } from '../../../common/errors.js';
import { decodeFormComponent } from '../../http/form-body.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** client_secret_basic (Authorization: Basic) or client_secret_post (in the body). */
  method: 'basic' | 'post';
}

const BASIC = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i;
const BASIC_SCHEME = /^Basic(\s|$)/i;

function badBasic(): TrawlError {
  return new TrawlError('invalid_client', 'Authorization: Basic must carry base64(client_id:client_secret), each form-urlencoded');
}

/**
 * The client's credentials from a token request (RFC 6749 2.3.1): HTTP Basic
 * with the form-urlencoded id and secret, or client_id and client_secret in
 * the body; one method only. Another Authorization scheme is ignored.
 */
export function clientCredentials(authorization: string, body: { client_id?: string; client_secret?: string }): ClientCredentials {
  if (BASIC_SCHEME.test(authorization)) {
    const encoded = BASIC.exec(authorization)?.[1];
    if (!encoded) throw badBasic();
    const pair = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 0) throw badBasic();
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = decodeFormComponent(pair.slice(0, colon));
      clientSecret = decodeFormComponent(pair.slice(colon + 1));
    } catch {
      throw badBasic();
    }
    if (body.client_secret !== undefined) {
      throw new TrawlError('invalid_request', 'Authenticate the client one way: Authorization: Basic or client_secret in the body, not both');
    }
    if (body.client_id !== undefined && body.client_id !== clientId) {
      throw new TrawlError('invalid_request', 'client_id in the body differs from the one in Authorization: Basic');
    }
    return { clientId, clientSecret, method: 'basic' };
  }
  if (!body.client_id || !body.client_secret) {
    throw new TrawlError('invalid_client', 'Client authentication is required: client_id and client_secret in the body, or Authorization: Basic');
  }
  return { clientId: body.client_id, clientSecret: body.client_secret, method: 'post' };
}
