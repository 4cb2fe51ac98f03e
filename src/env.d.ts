/** Injected by vite.config.ts: the git commit (or LANTERN_BUILD_ID) this build came from. */
declare const __BUILD_ID__: string;
