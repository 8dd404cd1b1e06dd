export type MessageVars = Record<string, string | number>;

/** Explicit direction controls: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069). */
const DIRECTION_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * A value that sets its own direction (a name with a right-to-left override, say) kept to itself: its
 * controls taken out and the value put in an isolate (FSI … PDI), which takes its direction from its
 * own letters. Left as they were, an override a name leaves open turns the rest of the sentence
 * around it backwards, and the app's own words could be made to read as something else. Any other
 * value is left exactly as it is.
 */
function isolated(value: string): string {
  DIRECTION_CONTROLS.lastIndex = 0;
  return DIRECTION_CONTROLS.test(value) ? isolate(value) : value;
}

/** A value in an isolate of its own (FSI … PDI), its own direction controls taken out. */
export const isolate = (value: string) => `\u2068${withoutDirectionControls(value)}\u2069`;

/** A value with its own direction controls taken out (to put in an isolate of its own). */
export const withoutDirectionControls = (value: string) => value.replace(DIRECTION_CONTROLS, '');

/** Fills `{name}` placeholders; an unknown placeholder is left as written so it shows in review. */
export function format(template: string, vars?: MessageVars): string {
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? isolated(String(vars[name])) : whole));
}
