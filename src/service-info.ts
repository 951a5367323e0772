// The service's name and version, as the information document, /health and the OpenAPI document give them.
import pkg from '../package.json';

export const SERVICE_NAME = 'Conduit';
export const SERVICE_VERSION: string = pkg.version;
