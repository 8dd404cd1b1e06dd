import { BusyButton } from './BusyButton';

/** The foot of a paged list: why the last page failed, if it did, and "Show more" while there is more. */
export function LoadMore({ error, hasMore, loading, label, onMore }: { error: string | null; hasMore: boolean; loading: boolean; label: string; onMore: () => void }) {
  return (
    <>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {hasMore && (
        <BusyButton type="button" className="btn btn-ghost-muted btn-block" busy={loading} onClick={onMore}>
          {label}
        </BusyButton>
      )}
    </>
  );
}
