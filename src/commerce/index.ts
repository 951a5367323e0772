// The commerce feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { commerceSlot } from './api';
export type { Catalog, ProductView } from './catalog';
export { orderPaid, orderStatusChanged, orderUnpaid, type OrderPaid, type OrderStatusChanged, type OrderUnpaid } from './events';
export type { OrderPayments } from './order-payments';
export { minorToDecimal, type OrderSource, type OrderStatus, type OrderView, type Orders } from './orders';
export type { CommerceSettings } from './settings';
export { deliveryAddress, recipientName, type DeliveryMethod, type OrderDelivery } from './delivery';
