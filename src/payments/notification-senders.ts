// Who may send YooKassa's HTTP notifications. YooKassa signs nothing; besides re-reading the payment (which
// needs the shop's credentials) its documentation offers one check: the sender's address, from the ranges it
// publishes (yookassa.ru/developers/using-api/webhooks#ip; the same list is built into its SDKs and
// integrations, e.g. WEBzaytsev/yookassa-ts-sdk's YOOKASSA_IP_RANGES, sanalrt999/yookassa-sdk-go). The list is
// config.ts's default of YOOKASSA_NOTIFICATION_IPS (YOOKASSA_NOTIFICATION_RANGES).
import { clientAddressOf } from '../http/client-address';
import { addressInRanges, parseAddressRanges, type AddressRange } from '../http/address-ranges';

export interface NotificationSenders {
  /** The request's client address (the socket's, or X-Forwarded-For as TRUST_PROXY allows) and whether it is listed. */
  check(request: Request): { address: string; allowed: boolean };
}

/** The check, or null when YOOKASSA_NOTIFICATION_IPS names no address (set empty: the operator switched it off). */
export function createNotificationSenders(options: { ranges: readonly string[]; trustProxy: boolean | number }): NotificationSenders | null {
  if (options.ranges.length === 0) return null;
  const ranges: AddressRange[] = parseAddressRanges([...options.ranges]);
  return {
    check(request) {
      const address = clientAddressOf(request, options.trustProxy);
      return { address, allowed: addressInRanges(address, ranges) };
    },
  };
}
