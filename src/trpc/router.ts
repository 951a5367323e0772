import { router } from './init';
import { authRouter } from './routers/auth';
import { keysRouter } from './routers/keys';

export const appRouter = router({
  auth: authRouter,
  keys: keysRouter,
});

/** The typed client's view of the dashboard API. */
export type AppRouter = typeof appRouter;
