import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'wouter';
import { useBackCloses } from '../lib/back-closes';
import { toast } from '../lib/toast';

export interface MenuItem {
  key: string;
  label: string;
  /** A link, or an action. */
  href?: string;
  onSelect?: () => void;
  danger?: boolean;
}

/**
 * A button that opens a small menu (WAI-ARIA menu button): the first item takes focus, arrows move,
 * Escape closes and gives focus back to the button; a tap outside, Tab or the back gesture closes it.
 * The toasts up when it opens make way, as for a sheet (`toast.makeWay`): one would cover its first item.
 */
export function Menu({
  label,
  button,
  items,
  className = '',
  buttonClassName = 'icon-btn',
}: {
  label: string;
  button: ReactNode;
  items: MenuItem[];
  className?: string;
  buttonClassName?: string;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  useBackCloses(open, () => {
    setOpen(false);
    return true;
  });

  useEffect(() => {
    if (!open) return;
    const toastsBack = toast.makeWay();
    root.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const outside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => {
      toastsBack();
      document.removeEventListener('pointerdown', outside);
    };
  }, [open]);

  function close(refocus: boolean) {
    setOpen(false);
    if (refocus) trigger.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent) {
    const entries = [...(root.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = entries.indexOf(document.activeElement as HTMLElement);
    const move = (index: number) => entries[(index + entries.length) % entries.length]?.focus();
    if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      move(at + 1);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      move(at - 1);
    } else if (event.key === 'Home') {
      event.preventDefault();
      move(0);
    } else if (event.key === 'End') {
      event.preventDefault();
      move(-1);
    } else if (event.key === 'Tab') {
      close(false);
    }
  }

  return (
    <div ref={root} className={`menu ${className}`} onKeyDown={open ? onKeyDown : undefined}>
      <button
        ref={trigger}
        type="button"
        className={buttonClassName}
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        {button}
      </button>
      {open && (
        <ul id={id} className="menu-list" role="menu" aria-label={label}>
          {items.map((item) => {
            const itemClass = item.danger ? 'menu-item menu-item-danger' : 'menu-item';
            // Focus back on the button first: a dialog the item opens gives it back there when it closes.
            // Not from a link: the new page's heading takes it (AppShell).
            const select = () => {
              close(!item.href);
              item.onSelect?.();
            };
            return (
              <li key={item.key} role="none">
                {item.href ? (
                  <Link href={item.href} role="menuitem" className={itemClass} onClick={select}>
                    {item.label}
                  </Link>
                ) : (
                  <button type="button" role="menuitem" className={itemClass} onClick={select}>
                    {item.label}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
