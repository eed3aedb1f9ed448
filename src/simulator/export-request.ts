/**
 * Validation of the export request body (CreateEvmTransactionExportRequest or
 * CreatePrimaryNetworkTransactionExportRequest). Structural problems answer 400 with every failed rule;
 * the content of date strings is judged later, by the operation (see exports.ts).
 */
import { primaryNetworkChains } from '../upstream/endpoints.js';
import { badRequest } from './http.js';
import type { OperationType } from './types.js';

export interface ExportRequest {
  type: OperationType;
  /** firstDate, or the deprecated startDate. */
  firstDate?: string;
  /** lastDate, or the deprecated endDate. */
  lastDate?: string;
  addresses: string[];
  cChainEvmAddresses?: string[];
  includeChains: string[];
}

export const operationTypes: readonly OperationType[] = [
  'TRANSACTION_EXPORT_PRIMARY_NETWORK',
  'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING',
  'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE',
  'TRANSACTION_EXPORT_EVM',
];

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

export function parseExportRequest(body: unknown): ExportRequest {
  if (!isRecord(body)) throw badRequest(['body must be a JSON object']);
  const messages: string[] = [];
  const type = body['type'];
  if (type === undefined || type === null || type === '') messages.push('type should not be empty');
  else if (!operationTypes.includes(type as OperationType)) {
    messages.push(`type must be one of the following values: ${operationTypes.join(', ')}`);
  }
  const dates: Record<string, string | undefined> = {};
  for (const field of ['firstDate', 'lastDate', 'startDate', 'endDate']) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') messages.push(`${field} must be a string`);
    else dates[field] = value;
  }
  const options = body['options'];
  const evm = type === 'TRANSACTION_EXPORT_EVM';
  if (options === undefined || options === null) messages.push('options should not be empty');
  else if (!isRecord(options)) messages.push('options must be an object');
  else {
    const { addresses, includeChains, cChainEvmAddresses } = options;
    if (evm && addresses === undefined) messages.push('options.addresses should not be empty');
    if (addresses !== undefined && !isStringArray(addresses))
      messages.push('options.addresses must be an array of strings');
    if (cChainEvmAddresses !== undefined && !isStringArray(cChainEvmAddresses)) {
      messages.push('options.cChainEvmAddresses must be an array of strings');
    }
    if (includeChains === undefined) messages.push('options.includeChains should not be empty');
    else if (!isStringArray(includeChains))
      messages.push('options.includeChains must be an array of strings');
    else if (evm && includeChains.some((c) => !/^\d+$/.test(c))) {
      messages.push('each value in options.includeChains must be an EVM chain id (a decimal string)');
    } else if (!evm && includeChains.some((c) => !(primaryNetworkChains as readonly string[]).includes(c))) {
      messages.push(
        `each value in options.includeChains must be one of the following values: ${primaryNetworkChains.join(', ')}`,
      );
    }
  }
  if (messages.length > 0) throw badRequest(messages);
  const opts = options as Record<string, unknown>;
  const request: ExportRequest = {
    type: type as OperationType,
    addresses: (opts['addresses'] as string[] | undefined) ?? [],
    includeChains: opts['includeChains'] as string[],
  };
  const firstDate = dates['firstDate'] ?? dates['startDate'];
  const lastDate = dates['lastDate'] ?? dates['endDate'];
  if (firstDate !== undefined) request.firstDate = firstDate;
  if (lastDate !== undefined) request.lastDate = lastDate;
  if (opts['cChainEvmAddresses'] !== undefined)
    request.cChainEvmAddresses = opts['cChainEvmAddresses'] as string[];
  return request;
}
