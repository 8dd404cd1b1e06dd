import { useEffect } from 'react';
import { useLocation } from 'wouter';
import { useSession } from '../stores/session';

/** Clears local storage and the user state, then goes to /. */
export function Logout() {
  const [, navigate] = useLocation();
  const signOut = useSession((state) => state.signOut);
  useEffect(() => {
    signOut();
    navigate('/', { replace: true });
  }, [navigate, signOut]);
  return null;
}
