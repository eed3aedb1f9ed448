/** The small endpoints: AVAX supply and aggregated signatures. */
import { isTxId } from '../../upstream/identifiers.js';
import { type Handler, json } from '../context.js';
import { hasSignature, signedMessage } from '../data/signatures.js';
import { notFound } from '../http.js';
import type { SignatureAggregationResponse } from '../types.js';
import { checkNetwork, createChecker, networkGroup } from '../validation.js';

export const getSupply: Handler = (ctx) => {
  const body = ctx.supply.at(ctx.clock.now());
  return json(200, body, (served) => {
    served.supply.push(body);
  });
};

export const getAggregatedSignatures: Handler = (ctx, req) => {
  const check = createChecker();
  const network = checkNetwork(check, req.params['network'], true);
  const txHash = req.params['txHash'] ?? '';
  if (!isTxId(txHash)) {
    check.add('txHash must be a P-Chain or X-Chain transaction id (the cb58 of 32 bytes with its checksum)');
  }
  check.done();
  if (!network) throw new Error('network was validated');
  if (!hasSignature(txHash)) throw notFound(`No warp message found for transaction ${txHash}`);
  const body: SignatureAggregationResponse = {
    signedMessage: signedMessage(ctx.seed, networkGroup(network), txHash),
  };
  return json(201, body, (served) => {
    served.signatures.push({ network, txHash, signedMessage: body.signedMessage });
  });
};
