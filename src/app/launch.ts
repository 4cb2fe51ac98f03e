import type { ModelDescriptor } from '../runtime/index.ts';

/**
 * How the app was opened, from the web app manifest's entry points: a shortcut or the file
 * handler (`?task=image-classification`), the share target (GET `?text=`, `&title=`, `&url=`),
 * or a link naming a model (`?model=`).
 */
export interface Launch {
  task?: ModelDescriptor['task'];
  modelId?: string;
  /** Text shared to Lantern; classified with the first text model. */
  sharedText?: string;
}

export function launchFromUrl(search: string): Launch {
  const params = new URLSearchParams(search);
  const task = params.get('task');
  // Share sheets fill some of title/text/url, and put links in `text` or `url` as they like.
  const shared = ['title', 'text', 'url'].map((name) => params.get(name)?.trim()).filter(Boolean).join('\n');
  return {
    ...(task === 'image-classification' || task === 'text-classification' ? { task } : {}),
    ...(params.get('model') ? { modelId: params.get('model')! } : {}),
    ...(shared ? { sharedText: shared, task: 'text-classification' as const } : {}),
  };
}

/** The model a launch asks for: by id, else the first of its task, else the first. */
export function launchModel(models: ModelDescriptor[], launch: Launch): ModelDescriptor | undefined {
  return models.find((m) => m.id === launch.modelId) ?? models.find((m) => m.task === launch.task) ?? models[0];
}

/** Chromium's File Handling API: files the OS opened "with Lantern". */
interface LaunchParams { files: { getFile(): Promise<File> }[] }
interface LaunchQueue { setConsumer(consumer: (params: LaunchParams) => void): void }

/** Calls `onFiles` with the image files the app was launched with (installed app, Chromium). */
export function consumeLaunchedFiles(onFiles: (files: File[]) => void, win: { launchQueue?: LaunchQueue } = window as { launchQueue?: LaunchQueue }): void {
  win.launchQueue?.setConsumer(async (params) => {
    const files = await Promise.all(params.files.map((handle) => handle.getFile()));
    if (files.length > 0) onFiles(files);
  });
}
