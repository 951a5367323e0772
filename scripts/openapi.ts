// Writes openapi.json from the router. A test fails when the committed file differs from this output.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from '../src/openapi/document';

const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
writeFileSync(target, renderOpenApiDocument());
console.log(`wrote ${target}`);
