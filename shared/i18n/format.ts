export type MessageVars = Record<string, string | number>;

/** Fills `{name}` placeholders; an unknown placeholder is left as written so it shows in review. */
export function format(template: string, vars?: MessageVars): string {
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}
