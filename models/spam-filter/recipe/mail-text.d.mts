/** Model input text of a raw mail: Subject value, a blank line, then the body. */
export function mailToText(rawMail: string): string;
/** 256: [CLS] + 254 content tokens + [SEP]. */
export const MAX_LENGTH: number;
/** Keep [CLS], the first maxLength-2 content ids and [SEP] of a full encoding. */
export function truncateIds<T>(ids: readonly T[], maxLength?: number): T[];
export function mailLabel(item: { group: string }): 0 | 1;
export function mailKey(item: { group: string; id: string }): string;
