// A case's comments, oldest first: add one (`c` focuses the box, Ctrl+Enter sends), edit or
// delete your own (the history keeps earlier text).
import { forwardRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useSession } from '../../app/session';
import { Dialog, DialogActions } from '../../components/Dialog';
import { QueryView } from '../../components/QueryView';
import { Button, ErrorState, Time } from '../../components/ui';
import { caseKeys, useComments } from './api';
import { Markdown } from './Markdown';
import type { Comment } from './types';

function CommentItem({
  comment,
  caseId,
  mine,
  canWrite,
}: {
  comment: Comment;
  caseId: string;
  mine: boolean;
  canWrite: boolean;
}) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(comment.body);
  const [confirming, setConfirming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: caseKeys.all });
  const save = useMutation({
    mutationFn: () => api.patch<Comment>(`/v1/cases/${caseId}/comments/${comment.id}`, { body: text.trim() }),
    onSuccess: () => {
      setEditing(false);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/v1/cases/${caseId}/comments/${comment.id}`),
    onSuccess: () => {
      setConfirming(false);
      void refresh();
    },
  });
  const edited = comment.updated_at !== comment.created_at;
  return (
    <li className="comment" aria-label={`Comment by ${comment.author.label}`}>
      <header className="comment-header">
        <strong>{comment.author.label}</strong>
        {comment.author.type === 'token' && <span className="faint"> (API token)</span>}
        <span className="faint">
          <Time iso={comment.created_at} />
          {edited && (
            <>
              {' '}
              · edited <Time iso={comment.updated_at} />
            </>
          )}
        </span>
        {mine && canWrite && !editing && (
          <span className="comment-actions">
            <Button
              small
              variant="ghost"
              onClick={() => {
                setText(comment.body);
                setEditing(true);
              }}
            >
              Edit
            </Button>
            <Button small variant="ghost" onClick={() => setConfirming(true)}>
              Delete
            </Button>
          </span>
        )}
      </header>
      {editing ? (
        <form
          className="comment-edit"
          onSubmit={(event) => {
            event.preventDefault();
            if (text.trim()) save.mutate();
          }}
        >
          <textarea
            aria-label="Edit comment"
            rows={3}
            value={text}
            maxLength={10_000}
            onChange={(event) => setText(event.target.value)}
            autoFocus
          />
          {save.isError && <ErrorState error={save.error} title="The comment was not saved" />}
          <div className="toolbar">
            <Button variant="primary" small type="submit" disabled={!text.trim() || save.isPending}>
              Save
            </Button>
            <Button small onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <Markdown source={comment.body} className="comment-body" />
      )}
      {confirming && (
        <Dialog
          title="Delete comment"
          onClose={() => setConfirming(false)}
          footer={
            <DialogActions
              onCancel={() => setConfirming(false)}
              label="Delete comment"
              variant="danger"
              disabled={remove.isPending}
              onConfirm={() => remove.mutate()}
            />
          }
        >
          {remove.isError && <ErrorState error={remove.error} title="The comment was not deleted" />}
          <p>Delete this comment? The case history keeps its text.</p>
        </Dialog>
      )}
    </li>
  );
}

export const Comments = forwardRef<HTMLTextAreaElement, { caseId: string; canWrite: boolean }>(function Comments(
  { caseId, canWrite },
  box,
) {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const comments = useComments(caseId);
  const [text, setText] = useState('');
  const add = useMutation({
    mutationFn: () => api.post<Comment>(`/v1/cases/${caseId}/comments`, { body: text.trim() }),
    onSuccess: () => {
      setText('');
      void queryClient.invalidateQueries({ queryKey: caseKeys.all });
    },
  });
  const submit = () => {
    if (text.trim() && !add.isPending) add.mutate();
  };
  return (
    <div className="comments">
      <QueryView query={comments} loading="Loading comments" error="Could not load comments">
        {(data) => {
          const all = data.pages.flatMap((page) => page.comments);
          return all.length === 0 ? (
            <p className="muted">No comments yet.</p>
          ) : (
            <ul className="comment-list">
              {all.map((comment) => (
                <CommentItem
                  key={comment.id}
                  comment={comment}
                  caseId={caseId}
                  mine={comment.author.id === me.id}
                  canWrite={canWrite}
                />
              ))}
            </ul>
          );
        }}
      </QueryView>
      {comments.hasNextPage && (
        <Button small onClick={() => void comments.fetchNextPage()} disabled={comments.isFetchingNextPage}>
          Load more comments
        </Button>
      )}
      {canWrite && (
        <form
          className="comment-form"
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <label className="field">
            <span className="field-label">Add a comment</span>
            <textarea
              ref={box}
              rows={3}
              value={text}
              maxLength={10_000}
              placeholder="Markdown. Ctrl+Enter to send; shortcut c focuses this box."
              onChange={(event) => setText(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit();
                if (event.key === 'Escape') event.currentTarget.blur();
              }}
            />
          </label>
          {add.isError && <ErrorState error={add.error} title="The comment was not added" />}
          <Button variant="primary" type="submit" disabled={!text.trim() || add.isPending}>
            {add.isPending ? 'Sending…' : 'Comment'}
          </Button>
        </form>
      )}
    </div>
  );
});
