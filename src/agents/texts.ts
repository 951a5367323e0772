// The agents' Russian messages: the records' errors and the settings fields' rules.
export const agentsMessages = {
  agentNotFound: 'Агент не найден',
  agentForbidden: 'Этот агент принадлежит другому пользователю',
  agentDeleted: 'Агент удалён',
  tooManyAgents: (max: number) => `Достигнут лимит агентов (${max}); удалите ненужного агента, чтобы создать нового`,
  agentTypeFixed: 'Тип агента нельзя изменить после создания',
  agentTypeInvalid: 'ожидается creator, service или ecommerce',
  agentNameRequired: 'обязательное поле',
  agentNameTooLong: 'не длиннее 100 символов',
  agentPromptTooLong: 'не длиннее 20000 символов',
  agentModelInvalid: 'ожидается вид <владелец>/<модель>, например openai/gpt-4o-mini',
  agentAcceptsImagesInvalid: 'ожидается true или false',
  workingDaysInvalid: 'ожидаются дни недели числами от 1 (понедельник) до 7 (воскресенье), хотя бы один',
  workingTimeInvalid: 'ожидается время в виде ЧЧ:ММ, например 10:00',
  workingTimeOrder: 'конец рабочего дня должен быть позже начала',
  workingTimeZoneInvalid: 'выберите часовой пояс из списка, например «Москва»',
} as const;
