// The interactive API page at /docs: Swagger UI served from our own node_modules, so it works offline.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const assetsDir = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
const ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'application/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

export const DOCS_HTML = `<!doctype html>
<html lang="ru">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Conduit API — документация</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });
  </script>
</body>
</html>
`;

/** A Swagger UI asset by file name, or null for anything not on the list. */
export function docsAsset(name: string): Response | null {
  const type = ASSETS.get(name);
  if (!type) return null;
  return new Response(Bun.file(join(assetsDir, name)), {
    headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
  });
}
