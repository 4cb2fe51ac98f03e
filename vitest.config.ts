import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'models/**/*.test.ts', 'scripts/**/*.test.ts', 'workers/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    // Unit tests are deterministic (fake workers, fake clocks): a retry would only hide a flaky one.
    retry: 0,
  },
});
