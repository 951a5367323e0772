// What each assistant tool does, in the owner's words: a Russian name and one line, by the tool's id. The
// ids stay the contract owners' prompts may name (docs/assistants.md); the screens show these instead.
export const toolNames: Record<string, { title: string; description: string }> = {
  list_services: { title: 'Список услуг', description: 'Называет клиенту услуги из YCLIENTS с ценами и длительностью.' },
  list_specialists: { title: 'Список специалистов', description: 'Называет мастеров, которые оказывают выбранную услугу.' },
  find_slots: { title: 'Поиск свободного времени', description: 'Ищет свободные окна на нужную дату у одного или всех мастеров.' },
  book_appointment: { title: 'Запись клиента', description: 'Записывает клиента на выбранное время сразу в YCLIENTS.' },
  list_my_appointments: { title: 'Записи клиента', description: 'Показывает клиенту его предстоящие визиты.' },
  cancel_appointment: { title: 'Отмена записи', description: 'Отменяет визит клиента по его просьбе.' },
  reschedule_appointment: { title: 'Перенос записи', description: 'Переносит визит клиента на другое время или к другому мастеру.' },
  search_products: { title: 'Поиск товаров', description: 'Находит товары в каталоге магазина по словам клиента.' },
  add_to_cart: { title: 'Добавление в корзину', description: 'Кладёт выбранный товар в корзину клиента.' },
  show_cart: { title: 'Корзина', description: 'Показывает клиенту, что лежит в корзине, и сумму.' },
  checkout: { title: 'Оформление заказа', description: 'Оформляет заказ и присылает клиенту ссылку на оплату.' },
  order_status: { title: 'Статус заказа', description: 'Сообщает клиенту, что с его заказом.' },
  search_knowledge: { title: 'Поиск в базе знаний', description: 'Отвечает на вопросы по записям базы знаний агента.' },
  offer_choices: { title: 'Кнопки в ответе', description: 'Добавляет под ответ кнопки: свободное время, услуги, товары или готовые ответы.' },
  escalate_to_human: { title: 'Передача сотруднику', description: 'Передаёт диалог вам, когда ассистент не может помочь сам.' },
};

/** The tool's Russian name and line; an id this page does not know yet is shown as it is. */
export const toolName = (id: string) => toolNames[id] ?? { title: id, description: '' };
