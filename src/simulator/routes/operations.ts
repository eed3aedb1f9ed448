/** Export operations: creation, status, and the download of the finished file. */
import { type Handler, json } from '../context.js';
import { parseExportRequest } from '../export-request.js';
import { notFound } from '../http.js';

export const createExport: Handler = (ctx, req) => {
  const request = parseExportRequest(req.body);
  const record = ctx.operations.create(request);
  // The creation answer is always RUNNING, even with runningMs 0: the work happens "in the background".
  const body = {
    operationId: record.id,
    operationType: request.type,
    operationStatus: 'RUNNING' as const,
    message: 'Transaction export started',
    createdAtTimestamp: record.createdAt,
    updatedAtTimestamp: record.createdAt,
  };
  return json(201, body, (served) => {
    served.operations.push(body);
  });
};

export const getOperation: Handler = (ctx, req) => {
  const id = req.params['operationId'] ?? '';
  const record = ctx.operations.get(id);
  if (!record) throw notFound(`Operation ${id} not found`);
  const body = ctx.operations.view(record, ctx.publicUrl());
  return json(200, body, (served) => {
    served.operations.push(body);
  });
};

export const download: Handler = (ctx, req) => {
  const file = req.params['file'] ?? '';
  const token = file.endsWith('.csv') ? file.slice(0, -4) : '';
  const range = ctx.operations.downloadable(req.params['operationId'] ?? '', token);
  if (!range) throw notFound('Export file not found');
  return { kind: 'csv', range };
};
