// Russian refusals of YooKassa's notifications that both receivers give (balance top-ups and shops' orders): they sit
// beside the sender check and the client both use.
export const paymentsMessages = {
  paymentUntrustedSender: 'Уведомление об оплате пришло не с адреса ЮKassa',
  yookassaVerifyUnavailable: 'ЮKassa недоступна: уведомление не проверено, оно будет принято при повторной доставке',
} as const;
