// The knowledge base's Russian messages: entries and their import.
export const knowledgeMessages = {
  knowledgeEntryNotFound: 'Запись базы знаний не найдена',
  knowledgeImportOneSource: 'Передайте что-то одно: содержимое CSV (столбцы title и content) или текст',
  knowledgeImportEmpty: 'Нет записей для импорта: в CSV нужны заголовок title,content и строки, в тексте — разделы, разделённые пустой строкой',
  knowledgeImportTooLarge: (max: number) => `За один раз можно импортировать не больше ${max} записей`,
  knowledgeCsvColumns: 'В CSV нужны столбцы title и content (или «заголовок» и «текст»)',
  knowledgeTooMany: (max: number) => `В базе знаний агента может быть не больше ${max} записей`,
} as const;
