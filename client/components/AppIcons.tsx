import { base, type IconProps } from './Icons';

/** The signed-in app's icons (Icons.tsx has the landing page's). */
export const UndoIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="M9 14 4 9l5-5" /><path d="M4 9h10.5a5.5 5.5 0 0 1 0 11H11" /></svg>
);
export const HomeIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="m3 10 9-7 9 7v10a1 1 0 0 1-1 1h-5v-6H9v6H4a1 1 0 0 1-1-1z" /></svg>
);
export const UserIcon = (props: IconProps) => (
  <svg {...base} {...props}><circle cx="12" cy="8" r="4" /><path d="M4 21a8 8 0 0 1 16 0" /></svg>
);
export const ChevronLeft = (props: IconProps) => (
  <svg {...base} {...props}><path d="m15 18-6-6 6-6" /></svg>
);
export const ChevronRight = (props: IconProps) => (
  <svg {...base} {...props}><path d="m9 18 6-6-6-6" /></svg>
);
export const SendIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="m22 2-7 20-4-9-9-4z" /><path d="M22 2 11 13" /></svg>
);
export const LogoutIcon = (props: IconProps) => (
  <svg {...base} {...props}><path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9" /></svg>
);
export const CalendarIcon = (props: IconProps) => (
  <svg {...base} {...props}><rect x="3" y="4" width="18" height="18" rx="2" /><path d="M16 2v4M8 2v4M3 10h18" /></svg>
);
export const SearchIcon = (props: IconProps) => (
  <svg {...base} {...props}><circle cx="11" cy="11" r="7" /><path d="m21 21-4.3-4.3" /></svg>
);
export const MoreIcon = (props: IconProps) => (
  <svg {...base} {...props}><circle cx="12" cy="5" r="1" /><circle cx="12" cy="12" r="1" /><circle cx="12" cy="19" r="1" /></svg>
);
export const StarIcon = (props: IconProps) => (
  <svg {...base} {...props}>
    <path d="m12 3 2.8 5.7 6.2.9-4.5 4.4 1.1 6.2L12 17.3 6.4 20.2l1.1-6.2L3 9.6l6.2-.9z" />
  </svg>
);
