// Per-request cost of checking a dashboard token (issue 32 point 3): the authenticator in process, and a
// loop of GET /api/keys over HTTP. `DATABASE_URL=postgres://… bun bench/session-check.ts` (or without it:
// PGlite). Run on two commits to compare: it uses only what both have.
import { call, registerUser, startTestApp } from '../test/helpers/app';

const N = Number(process.env.N ?? 3000);
const app = await startTestApp();
try {
  const user = await registerUser(app.url);
  const headers = new Headers({ authorization: `Bearer ${user.token}` });
  const auth = app.instance.services.authenticator;
  const inProcess = async () => {
    const t = Bun.nanoseconds();
    for (let i = 0; i < N; i++) await auth.jwtUser(headers);
    return (Bun.nanoseconds() - t) / N / 1000;
  };
  const overHttp = async () => {
    const t = Bun.nanoseconds();
    for (let i = 0; i < N / 3; i++) {
      const res = await call(app.url, 'GET', '/api/keys', { token: user.token });
      if (res.status !== 200) throw new Error(`GET /api/keys: ${res.status}`);
    }
    return (Bun.nanoseconds() - t) / (N / 3) / 1000;
  };
  await inProcess();
  await overHttp();
  const rounds = [0, 1, 2];
  let auth_us = Infinity;
  let http_us = Infinity;
  for (const _ of rounds) auth_us = Math.min(auth_us, await inProcess());
  for (const _ of rounds) http_us = Math.min(http_us, await overHttp());
  console.log(
    `driver=${app.instance.services.database.driver} authenticator.jwtUser: ${auth_us.toFixed(1)} µs/call; GET /api/keys: ${http_us.toFixed(1)} µs/request`,
  );
} finally {
  await app.close();
}
