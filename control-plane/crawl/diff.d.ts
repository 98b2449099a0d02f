/** Types for the part of diff 7 (jsdiff) in use; version 7 ships none. */
declare module 'diff' {
  export interface Hunk {
    oldStart: number;
    oldLines: number;
    newStart: number;
    newLines: number;
    /** Each line prefixed with ' ', '-' or '+' (and '\\' for "No newline at end of file"). */
    lines: string[];
  }
  export interface StructuredPatch {
    hunks: Hunk[];
  }
  export function structuredPatch(
    oldFileName: string,
    newFileName: string,
    oldStr: string,
    newStr: string,
    oldHeader?: string,
    newHeader?: string,
    options?: { context?: number },
  ): StructuredPatch;
}
