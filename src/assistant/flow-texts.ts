// What the button flows say when a client does something ordinary mid-flow (a question, «отмена», a
// refusal to give a phone) and the summaries shown before a booking or an order is made (house rule 9:
// the assistant's texts in its texts files; these are the flows' own).
import type { Flow } from './flow';

export const flowTexts = {
  buttonConfirm: 'Подтвердить',
  buttonChange: 'Изменить',
  buttonCancel: 'Отмена',
  buttonSkip: 'Пропустить',

  // Cancel words end the flow with the menu.
  bookingCanceled: 'Хорошо, запись не оформляю. Если захотите записаться — нажмите «Записаться».',
  checkoutCanceled: 'Хорошо, заказ не оформляю. Товары остались в корзине.',
  handoffCanceled: 'Хорошо, остаёмся здесь — я продолжу отвечать сам. Чем могу помочь?',
  flowCanceled: 'Хорошо, отменил. Чем могу помочь?',
  rescheduleCanceled: 'Хорошо, запись остаётся на прежнем времени.',
  // A press of a «Подтвердить» / «Изменить» whose summary is no longer open.
  staleButton: 'Эта кнопка уже не действует. Выберите, пожалуйста, заново:',

  // The booking flow.
  askName: 'Как вас записать? Напишите, пожалуйста, имя.',
  nameNotUnderstood: 'Напишите, пожалуйста, только имя — как к вам обращаться, например: Анна.',
  askBookingPhone: 'Напишите, пожалуйста, номер телефона для записи — он нужен салону, чтобы подтвердить визит.',
  bookingNeedsPhone:
    'Без телефона салон не может записать онлайн. Напишите номер, например: +7 916 123-45-67, или нажмите «Отмена» — тогда можно написать «оператор».',
  bookingSummary: (d: { service: string; specialist: string; when: string; name: string; phone: string }) =>
    ['Проверьте, пожалуйста, запись:', `${d.service}, ${d.specialist}`, d.when, `Имя: ${d.name}`, `Телефон: ${d.phone}`, 'Всё верно?'].join('\n'),

  // Moving a visit («Перенести» under a booking).
  buttonReschedule: 'Перенести',
  chooseNewSlot: (service: string, specialist: string, when: string) => `На какое время перенести запись (${service}, ${specialist}, сейчас ${when})?`,
  rescheduleSummary: (d: { service: string; specialist: string; before: string; after: string }) =>
    ['Перенести запись?', `${d.service}, ${d.specialist}`, `Было: ${d.before}`, `Станет: ${d.after}`].join('\n'),
  rescheduled: (d: { service: string; specialist: string; before: string; after: string }) =>
    `Готово! Запись перенесена: ${d.service}, ${d.specialist}, ${d.after} (было ${d.before}).`,
  appointmentGone: 'Этой записи уже нет или её время прошло. Выберите, пожалуйста, что сделать:',

  // The shop's check-out.
  askCheckoutPhone: 'Напишите, пожалуйста, номер телефона для заказа — по нему магазин свяжется с вами о доставке.',
  checkoutNeedsPhone: 'Без телефона оформить заказ не получится. Напишите номер, например: +7 916 123-45-67, или нажмите «Отмена».',
  orderSummary: (lines: string[], total: string, phone: string, delivery: string[] = []) =>
    ['Проверьте, пожалуйста, заказ:', ...lines, ...delivery, `Итого: ${total}`, `Телефон: ${phone}`, 'Оформляем?'].join('\n'),
  // Delivery at check-out (when the shop set it up).
  askDelivery: 'Как вам удобнее получить заказ?',
  deliveryName: { pickup: 'Самовывоз', courier: 'Курьер', post: 'Почта' } as Record<'pickup' | 'courier' | 'post', string>,
  deliveryButton: (name: string, price: string | null) => (price ? `${name} — ${price}` : `${name} — бесплатно`),
  askAddress: (method: 'courier' | 'post') =>
    method === 'courier'
      ? 'Напишите, пожалуйста, адрес доставки: город, улица, дом, квартира.'
      : 'Напишите, пожалуйста, почтовый адрес: индекс, город, улица, дом, квартира.',
  addressNotUnderstood: 'Не получилось разобрать адрес. Напишите его одной строкой (от 5 до 300 символов), например: Москва, ул. Ленина, д. 5, кв. 12.',
  askRecipient: 'На чьё имя оформить доставку? Напишите, пожалуйста, имя и фамилию получателя.',
  recipientNotUnderstood: 'Напишите, пожалуйста, только имя и фамилию получателя, например: Анна Иванова.',
  deliveryUnavailable: 'Этот способ доставки сейчас недоступен. Выберите, пожалуйста, другой:',
  deliveryLine: (name: string, price: string | null) => `Доставка: ${name}, ${price ?? 'бесплатно'}`,
  pickupLine: (address: string) => `Адрес самовывоза: ${address}`,
  addressLine: (address: string) => `Адрес: ${address}`,
  recipientLine: (name: string) => `Получатель: ${name}`,

  // The hand-over to a person.
  askHandoffPhone:
    'Передаю ваш вопрос сотруднику. Если удобно, напишите номер телефона, чтобы с вами могли связаться, — или нажмите «Пропустить», и сотрудник ответит здесь.',
  handoffPhoneNotUnderstood: 'Не получилось разобрать номер. Напишите его, например, так: +7 916 123-45-67 — или нажмите «Пропустить».',

  // Told to the model when a question comes in the middle of a flow.
  modelContext: (where: string) =>
    `Клиент сейчас проходит шаги по кнопкам: ${where}. Ответь на его сообщение коротко и не оформляй ничего сам: после твоего ответа система сама вернёт клиента к этому шагу.`,
} as const;

/** Where the flow stands, for the model (see modelContext). */
export function flowPlace(flow: Flow): string {
  switch (flow.step) {
    case 'booking_name':
      return 'запись на услугу, время выбрано, ждём имя клиента';
    case 'booking_phone':
      return 'запись на услугу, время и имя выбраны, ждём номер телефона';
    case 'booking_confirm':
      return 'запись на услугу, клиенту показаны данные записи, ждём «Подтвердить» или «Изменить»';
    case 'checkout_delivery':
      return 'оформление заказа из корзины, ждём выбор способа доставки кнопкой';
    case 'checkout_address':
      return 'оформление заказа из корзины, способ доставки выбран, ждём адрес доставки';
    case 'checkout_recipient':
      return 'оформление заказа из корзины, адрес доставки получен, ждём имя получателя';
    case 'checkout_phone':
      return 'оформление заказа из корзины, ждём номер телефона';
    case 'checkout_confirm':
      return 'оформление заказа из корзины, клиенту показан заказ, ждём «Подтвердить» или «Изменить»';
    case 'phone':
      return 'передача вопроса сотруднику, ждём номер телефона или «Пропустить»';
    case 'reschedule_confirm':
      return 'перенос записи на другое время, клиенту показаны старое и новое время, ждём «Подтвердить» или «Изменить»';
  }
}

/** «+7 916 123-45-67» from the digits kept (a Russian number); other numbers as «+» and their digits. */
export function showPhone(digits: string): string {
  if (/^7\d{10}$/.test(digits)) return `+7 ${digits.slice(1, 4)} ${digits.slice(4, 7)}-${digits.slice(7, 9)}-${digits.slice(9)}`;
  return `+${digits}`;
}
