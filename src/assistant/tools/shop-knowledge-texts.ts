// What the shop and knowledge tools say, in one place (house rule 9): their descriptions and results,
// which the model reads and turns into its answer to the client, the short lines the owner reads in the
// inbox transcript, and the reasons a tool is missing shown on the agent's page. assistant/texts.ts
// holds what is said to clients directly.
import type { OrderStatus } from '../../commerce';

export const shopKnowledgeTexts = {
  // Shop: descriptions for the model.
  searchProducts:
    'Найти товары магазина по словам клиента (название, описание, характеристики вроде размера и цвета). Возвращает до 8 товаров с id, ценой, характеристиками и наличием. Вызывай, прежде чем говорить о товарах, ценах и наличии.',
  searchProductsQuery: 'Что ищет клиент, его словами: «красное платье M», «льняная скатерть»',
  addToCart: 'Положить товар в корзину клиента. productId — id из результата search_products. Товар не в наличии добавить нельзя.',
  addToCartProductId: 'id товара из search_products',
  addToCartQuantity: 'Сколько штук добавить (1–99)',
  showCart: 'Показать корзину клиента: товары, количество, суммы и итог.',
  checkout:
    'Оформить заказ из корзины клиента. Нужен телефон клиента (спроси, если он его не называл). Возвращает номер заказа и ссылку на оплату — передай их клиенту.',
  checkoutPhone: 'Телефон клиента, например +7 916 123-45-67',
  // The shop delivers (its settings have delivery methods): the same tool asks for the delivery too.
  checkoutWithDelivery:
    'Оформить заказ из корзины клиента с доставкой. Нужны телефон клиента и способ получения; для курьера и почты ещё адрес и имя с фамилией получателя (спроси клиента, чего не знаешь). Цена доставки добавляется к сумме заказа. Возвращает номер заказа, итог и ссылку на оплату.',
  checkoutDeliveryMethod: (methods: string[]) => `Способ получения заказа: ${methods.join('; ')}`,
  checkoutMethodLine: (id: string, name: string, price: string | null, pickupAddress: string | null) =>
    `${id} — ${name.toLowerCase()}, ${price ?? 'бесплатно'}${pickupAddress ? ` (адрес: ${pickupAddress})` : ''}`,
  checkoutDeliveryAddress: 'Адрес доставки одной строкой: город, улица, дом, квартира (для почты и индекс). Для самовывоза не нужен.',
  checkoutRecipientName: 'Имя и фамилия получателя для курьера и почты, например: Анна Иванова. Для самовывоза не нужно.',
  orderStatusTool: 'Узнать состояние заказа клиента по номеру вида ORD-20261201-0001. Видны только заказы этого клиента.',
  orderStatusNumber: 'Номер заказа, например ORD-20261201-0001',

  // Shop: results for the model.
  badArguments: 'Неверные аргументы вызова: проверь их по описанию функции.',
  nothingFound: 'Ничего не найдено. Уточни у клиента, что он ищет, или предложи похожее.',
  productNotFound: 'Товар с таким id не найден: найди его заново через search_products.',
  outOfStock: (title: string) => `Товара «${title}» сейчас нет в наличии: добавить его нельзя.`,
  notEnough: (title: string, inStock: number, inCart: number) => `Товара «${title}» в наличии ${inStock} шт., в корзине уже ${inCart} шт.: столько добавить нельзя.`,
  phoneNeeded: 'Для заказа нужен телефон клиента: спроси его и вызови checkout ещё раз.',
  deliveryMethodNeeded:
    'Магазин доставляет заказы: спроси клиента, как ему удобнее получить заказ (способы и цены — в deliveryMethods), и вызови checkout ещё раз с deliveryMethod.',
  deliveryMethodUnknown: (method: string) =>
    `Способа получения «${method.slice(0, 40)}» в этом магазине нет: предложи клиенту один из deliveryMethods и вызови checkout ещё раз.`,
  addressNeeded: (post: boolean) =>
    `Для доставки нужен адрес: спроси у клиента ${post ? 'индекс, город, улицу, дом и квартиру' : 'город, улицу, дом и квартиру'} и вызови checkout ещё раз с deliveryAddress.`,
  addressInvalid: (reason: string) => `Адрес не подходит (${reason}): попроси клиента написать полный адрес одной строкой и вызови checkout ещё раз.`,
  recipientNeeded: 'Для доставки нужны имя и фамилия получателя: спроси их у клиента и вызови checkout ещё раз с recipientName.',
  recipientInvalid: (reason: string) => `Имя получателя не подходит (${reason}): спроси у клиента имя и фамилию получателя и вызови checkout ещё раз.`,
  // The announcement of the order and the result's delivery, for the model.
  deliveryFact: (name: string, price: string | null) => `${name}, ${price ?? 'бесплатно'}`,
  paymentsUnavailable: 'Оформление заказов в этом магазине не настроено. Предложи клиенту связаться с сотрудником.',
  nothingToOrder: 'В корзине нет товаров, которые можно заказать: сначала добавь товары через add_to_cart.',
  orderCreatedNote:
    'Заказ оформлен, и клиенту уже отправлено сообщение с номером, суммой и кнопкой «Оплатить». Не повторяй ссылку — коротко поблагодари или ответь на остальное.',
  badArgument: (field: string) => `Неверный аргумент ${field}: проверь его по описанию функции.`,
  openOrdersLimit: (max: number) =>
    `У клиента уже ${max} неоплаченных заказа — новый оформить нельзя. Предложи оплатить один из них (order_status покажет ссылку) или передай диалог сотруднику.`,
  orderNotFound: 'Заказ с таким номером не найден среди заказов этого клиента.',
  orderStatus: { pending: 'ожидает оплаты', paid: 'оплачен', shipped: 'отправлен', delivered: 'доставлен', cancelled: 'отменён' } satisfies Record<
    OrderStatus,
    string
  >,

  // Shop: what the model is told of the client (client-context.ts).
  factOpenOrder: (number: string, total: string, link: string | null) => `Неоплаченный заказ ${number} на ${total}${link ? `, ссылка на оплату: ${link}` : ''}.`,

  // Shop: the owner's transcript lines.
  summaryBadArguments: 'неверные аргументы',
  summaryBadArgument: (field: string) => (field ? `неверный аргумент ${field}` : 'неверные аргументы'),
  summaryOpenOrdersLimit: (max: number) => `заказ не оформлен: у клиента уже ${max} неоплаченных`,
  summarySearch: (query: string, found: number) => `поиск «${query.slice(0, 60)}»: найдено ${found}`,
  summaryProductNotFound: 'товар не найден',
  summaryOutOfStock: (title: string) => `«${title}»: нет в наличии`,
  summaryAdded: (title: string, quantity: number) => `в корзине «${title}» × ${quantity}`,
  summaryCart: (lines: number, total: string) => (lines === 0 ? 'корзина пуста' : `в корзине позиций: ${lines}, итого ${total}`),
  summaryPhoneNeeded: 'нужен телефон клиента',
  summaryDeliveryNeeded: (what: string[]) => `заказ не оформлен: нужно уточнить ${what.join(', ')}`,
  summaryWhatPhone: 'телефон',
  summaryWhatMethod: 'способ получения',
  summaryWhatAddress: 'адрес',
  summaryWhatRecipient: 'получателя',
  summaryPaymentsUnavailable: 'оплата не настроена',
  summaryNothingToOrder: 'нечего заказывать',
  summaryOrder: (number: string, total: string) => `заказ ${number} на ${total}`,
  summaryOrderNotFound: (number: string) => `заказ ${number.slice(0, 40)} не найден`,
  summaryOrderStatus: (number: string, status: string) => `заказ ${number}: ${status}`,

  // Knowledge.
  searchKnowledge:
    'Найти ответ в базе знаний владельца (цены, часы работы, доставка, условия, частые вопросы). Вызывай, когда клиент спрашивает о том, чего нет в разговоре. Отвечай только по найденному.',
  searchKnowledgeQuery: 'Вопрос клиента или ключевые слова: «доставка в регионы», «стоимость стрижки»',
  knowledgeNothingFound: 'В базе знаний ничего не найдено. Не выдумывай: скажи, что уточнишь, или передай вопрос сотруднику.',
  summaryKnowledge: (query: string, found: number) => `база знаний «${query.slice(0, 60)}»: найдено ${found}`,
  promptKnowledgeHeader: 'Из базы знаний владельца (отвечай по этим сведениям, если они относятся к вопросу):',

  // Why a tool is missing, on the agent's page.
  missingProducts: 'Добавьте товары в каталог',
  missingPayments: 'Настройте оплату заказов в разделе «Магазин»',
  missingKnowledge: 'Добавьте записи в базу знаний',
} as const;
