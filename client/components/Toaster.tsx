import { ToastContainer } from 'react-toastify';
import { TOAST_AUTO_CLOSE_MS } from '../../shared/constants';

/** Top-right, 5000 ms (PRODUCT.md §9); a toast may ask for another position (register: bottom-right). */
export function Toaster() {
  return <ToastContainer position="top-right" autoClose={TOAST_AUTO_CLOSE_MS} newestOnTop theme="colored" />;
}
