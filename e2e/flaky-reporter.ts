import type { Reporter, TestCase } from '@playwright/test/reporter';

/**
 * Names every test that passed only on a retry (CI allows one): a retry must not hide a flaky
 * test. Listed at the end of the run and, on CI, as GitHub-style warnings.
 */
export default class FlakyReporter implements Reporter {
  private readonly flaky = new Set<TestCase>();

  onTestEnd(test: TestCase): void {
    if (test.outcome() === 'flaky') this.flaky.add(test);
  }

  onEnd(): void {
    if (this.flaky.size === 0) return;
    const lines = [...this.flaky].map((test) => `${test.location.file.replace(/^.*\/e2e\//, 'e2e/')}:${test.location.line} › ${test.titlePath().slice(1).join(' › ')}`);
    process.stdout.write(`\n${this.flaky.size} test(s) passed only on retry (flaky):\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
    if (process.env.CI) for (const line of lines) process.stdout.write(`::warning title=Flaky e2e test::${line}\n`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
