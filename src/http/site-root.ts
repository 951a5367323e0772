// The site root: a browser gets a short page saying what the service is, with the way in to the dashboard; an
// API client gets the information document (http/site.route.ts).
import { SERVICE_NAME } from '../service-info';
import { escapeHtml, SITE_STYLE } from './site-page';

/** True when the client names text/html (or XHTML) with a weight above zero, as browsers do. */
export function acceptsHtml(accept: string | null): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    if (type !== 'text/html' && type !== 'application/xhtml+xml') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** The support contact as a link where it is an address (as the dashboard shows it), else as text. */
function contactHtml(contact: string): string {
  const text = escapeHtml(contact);
  if (/^https?:\/\/\S+$/i.test(contact)) return `<a href="${text}" rel="noopener">${text}</a>`;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)) return `<a href="mailto:${text}">${text}</a>`;
  return `<b>${text}</b>`;
}

/**
 * The page a person opening the site's address sees: what the service does, how to start, and the way to
 * the login and registration forms. Self-contained (no script, styles inline — site-page.ts, which the
 * mailed links' pages share): it must show even when the dashboard's files do not.
 */
export function siteRootHtml(config: { supportContact: string | undefined; publicBaseUrl: string }): string {
  const name = escapeHtml(SERVICE_NAME);
  const support = config.supportContact
    ? `<p data-testid="root-support">Поддержка: ${contactHtml(config.supportContact)}</p>`
    : '<p class="muted" data-testid="root-support">Контакт поддержки оператор сервиса не указал.</p>';
  return `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${name} — доступ к языковым моделям по API</title>
<style>
${SITE_STYLE}
</style>
</head>
<body>
<main>
<p class="brand">${name}</p>
<h1>Языковые модели через один API</h1>
<p class="lead">${name} даёт доступ к языковым моделям разных поставщиков по одному ключу и с одним балансом. Запросы совместимы с API OpenAI: подходят готовые библиотеки и примеры.</p>
<div class="actions">
<a class="button primary" href="/app/register" data-testid="root-register">Зарегистрироваться</a>
<a class="button secondary" href="/app/login" data-testid="root-login">Войти</a>
</div>
<h2>Как начать</h2>
<ol>
<li>Зарегистрируйтесь и подтвердите e-mail.</li>
<li>Создайте ключ в панели управления.</li>
<li>Отправляйте запросы на <code data-testid="root-base-url">${escapeHtml(`${config.publicBaseUrl}/v1`)}</code> — оплата по токенам с баланса.</li>
</ol>
<p>Кроме API — ассистенты для сайтов и мессенджеров, которые отвечают клиентам и зовут вас, когда нужен человек.</p>
<footer>
${support}
<p class="muted"><a href="/docs">Документация API</a></p>
</footer>
</main>
</body>
</html>`;
}
