// Why the listener could not start, in one line that names the variable to change.
import { hostUrl } from './config.ts';

export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = hostUrl(host, port);
  switch (error.code) {
    case 'EADDRINUSE':
      return new Error(`http: ${where} is already in use; set PARLEY_HTTP_PORT to a free port`);
    case 'EACCES':
      return new Error(`http: no permission to listen on ${where}; set PARLEY_HTTP_PORT to a port above 1023`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new Error(`http: ${host} is not an address of this machine; check PARLEY_HTTP_HOST`);
    default:
      return new Error(`http: cannot listen on ${where}: ${error.message}`);
  }
}
