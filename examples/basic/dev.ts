import { FolderModelSource, Lantern } from 'lantern';

// Development only: unsigned folders need the explicit opt-in, and every result says so.
const lantern = Lantern.create({ models: new FolderModelSource('hub/'), allowUnsigned: true });

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
$('classify').addEventListener('click', async () => {
  const status = $('status');
  try {
    const result = await lantern.classify($<HTMLInputElement>('model').value, $<HTMLTextAreaElement>('text').value, { topK: 1 });
    const top = result.predictions[0]!;
    status.textContent = `${top.label} ${(top.score * 100).toFixed(1)}% (${result.signed ? 'signed' : 'unsigned'}, ${result.backend})`;
  } catch (error) {
    status.textContent = `${(error as Error).name}: ${(error as Error).message}`;
  }
});
