/**
 * An avatar made from the name when there is no photo: initials on a colour picked from the name.
 * Letters only, whole characters: a word of emoji or digits gives none ("🎉 Dani 🕺🏽" is DA), and a
 * name of emoji alone shows its first.
 */
export function initials(name: string): string {
  const words = name
    .trim()
    .split(/\s+/)
    .map((word) => word.match(/\p{L}/gu) ?? [])
    .filter((letters) => letters.length > 0);
  const [first, last] = [words[0], words[words.length - 1]];
  if (!first || !last) return Array.from(name.trim())[0] ?? '?';
  return (words.length > 1 ? first[0]! + last[0]! : first.slice(0, 2).join('')).toUpperCase();
}

export function hueFor(name: string): number {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 360;
}

export function generatedAvatar(name: string): string {
  const hue = hueFor(name);
  // Half of a surrogate pair would make the URL malformed (encodeURIComponent throws).
  const text = initials(name).replace(/[<>&"']|\p{Cs}/gu, '');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="hsl(${hue} 55% 38%)"/><text x="50%" y="50%" dy=".35em" text-anchor="middle" font-family="system-ui,sans-serif" font-size="26" font-weight="600" fill="#fff">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}
