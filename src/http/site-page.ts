// The look of every page the server renders itself (no dashboard script): the site root, and the pages a
// mailed link opens (address verification, e-mail change and its cancel, password reset). Self-contained
// (styles inline, no script): it must show even when the dashboard's files do not.
import { SERVICE_NAME } from '../service-info';

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const SITE_STYLE = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#f5f7fa}
main{max-width:44rem;margin:0 auto;padding:2.5rem 1.25rem}
h1{font-size:1.9rem;line-height:1.2;margin:.25rem 0 1rem}
a{color:#3451b2}
.brand{font-weight:700;color:#3451b2;margin:0}
.brand a{text-decoration:none}
.lead{font-size:1.15rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.5rem 0}
.button,button{display:inline-block;font:inherit;padding:.7rem 1.3rem;border-radius:.5rem;text-decoration:none;font-weight:600;border:2px solid #3451b2;cursor:pointer}
.primary,button{background:#3451b2;color:#fff}
.secondary{background:#fff;color:#3451b2}
ol{padding-left:1.25rem}
code{font-family:ui-monospace,Menlo,Consolas,monospace;background:#e4e7eb;padding:.1rem .3rem;border-radius:.25rem;overflow-wrap:anywhere}
.muted{color:#52606d}
.card{background:#fff;border:1px solid #cbd2d9;border-radius:.75rem;padding:1.25rem 1.5rem;margin:1rem 0}
.card h1{font-size:1.6rem}
.ok h1{color:#1e6b3a}
.error{color:#b3261e}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{font:inherit;padding:.55rem .7rem;width:100%;border:1px solid #9aa5b1;border-radius:.4rem}
small{display:block;color:#52606d;margin-top:.25rem}
footer{margin-top:2rem;border-top:1px solid #cbd2d9;padding-top:1rem}`;

/** A link onward, drawn as a button: the first of a page's links is its main way on. */
export interface PageLink {
  href: string;
  text: string;
}

export function linksHtml(links: readonly PageLink[]): string {
  if (links.length === 0) return '';
  const items = links.map((l, i) => `<a class="button ${i === 0 ? 'primary' : 'secondary'}" href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a>`);
  return `<div class="actions">${items.join('')}</div>`;
}

/**
 * A whole page in the site's look: the service's name on top (a link to the site root), then `main`
 * (already HTML). `title` goes into <title> with the service's name.
 */
export function sitePageHtml(title: string, main: string): string {
  const name = escapeHtml(SERVICE_NAME);
  return `<!doctype html>
<html lang="ru">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — ${name}</title>
<style>
${SITE_STYLE}
</style>
</head>
<body>
<main>
<p class="brand"><a href="/">${name}</a></p>
${main}
</main>
</body>
</html>
`;
}

/** What a mailed link's page says: a heading, its text, and where to go next. `ok` colours a success. */
export function messageCardHtml(options: { title: string; message: string; links?: readonly PageLink[]; ok?: boolean; state?: string }): string {
  const state = options.state ? ` data-state="${escapeHtml(options.state)}"` : '';
  return (
    `<section class="card${options.ok ? ' ok' : ''}"${state}><h1>${escapeHtml(options.title)}</h1>` +
    `<p>${escapeHtml(options.message)}</p>${linksHtml(options.links ?? [])}</section>`
  );
}
