// The gateway feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { gatewaySlot } from './api';
export type { Billing, Charge } from './billing/index';
export type { ChatHandler } from './chat';
export { charged } from './events';
export type { ModelCatalog, ModelEntry } from './models';
export type { ChatRequest } from './request';
export { DEFAULT_PROVIDER_ID, ROUTING_CHANGED_CHANNEL, type Routing } from './routing/registry';
export type { RouteTarget } from './routing/select';
export { gatewayMessages } from './texts';
export type { Protocol } from './upstream';
export {
  CSV_FORMATS,
  USAGE_EXPORT_FORMATS,
  UTF8_BOM,
  csvFormatParameter,
  csvHeader,
  excelDateTime,
  excelDay,
  moneyCell,
  neutraliseCell,
  textCell,
  type CsvFormat,
} from './usage-export';
export { usageSpan } from './usage-rollups';
