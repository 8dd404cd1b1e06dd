import type { SVGProps } from 'react';

/** The landing page's icons; the signed-in app's are in AppIcons.tsx, so the first page does not carry them. */
export type IconProps = SVGProps<SVGSVGElement>;
export const base = { width: 24, height: 24, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round', strokeLinejoin: 'round', 'aria-hidden': true } as const;

export const HeartIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="M20.8 4.6a5.5 5.5 0 0 0-7.8 0L12 5.7l-1-1.1a5.5 5.5 0 0 0-7.8 7.8l1 1.1L12 21l7.8-7.5 1-1.1a5.5 5.5 0 0 0 0-7.8z" /></svg>
);
export const CloseIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="M18 6 6 18M6 6l12 12" /></svg>
);
export const SkipIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="m5 4 10 8-10 8V4zM19 5v14" /></svg>
);
export const MenuIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="M3 6h18M3 12h18M3 18h18" /></svg>
);
export const ChatIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z" /></svg>
);
export const SparkIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="M12 2v4M12 18v4M4.9 4.9l2.8 2.8M16.3 16.3l2.8 2.8M2 12h4M18 12h4M4.9 19.1l2.8-2.8M16.3 7.7l2.8-2.8" /></svg>
);
