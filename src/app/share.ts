/**
 * Shares a result's text: the Web Share sheet where the browser has one (phones), else the
 * clipboard. Says which happened so the button can confirm it.
 */
export async function shareText(title: string, text: string, nav: Navigator = navigator): Promise<'shared' | 'copied'> {
  const data = { title, text };
  if (typeof nav.share === 'function' && (nav.canShare?.(data) ?? true)) {
    try {
      await nav.share(data);
      return 'shared';
    } catch (error) {
      // The user closing the share sheet is not a failure to fall back from.
      if ((error as DOMException).name === 'AbortError') throw error;
    }
  }
  await nav.clipboard.writeText(text);
  return 'copied';
}
