import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shared folder of real models and photos (never copied into the repo): next to the checkout
 * (`../shared`), or next to the folder of worktrees (`../../shared`). Undefined when absent.
 */
export function sharedDir(root: string): string | undefined {
  return [join(root, '..', 'shared'), join(root, '..', '..', 'shared')].find((dir) => existsSync(join(dir, 'models')));
}
