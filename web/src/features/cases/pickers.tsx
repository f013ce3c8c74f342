// Pickers the case pages share: a person of the tenant (GET /v1/users), an ATT&CK technique
// (autocomplete from GET /v1/attack/techniques), and a tag list editor.
import { useId, useState } from 'react';
import { useSession } from '../../app/session';
import { Button } from '../../components/ui';
import { TECHNIQUE_ID } from '../../lib/attack';
import { useMembers, useTechniqueSearch } from './api';

/** Whether "Me" can be assigned: a person of this tenant (operators and tokens are not). */
export function useAssignableMe(): string | null {
  const { me } = useSession();
  return me.kind === 'user' && !me.operator && me.tenant ? me.id : null;
}

/**
 * A select of the tenant's people. Values: a user id; 'none' (unassigned); 'me' when `withMe`;
 * '' (anyone) when `anyLabel` is given.
 */
export function PersonSelect({
  label,
  value,
  onChange,
  anyLabel,
  withMe,
  disabled,
  hideLabel,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  anyLabel?: string;
  withMe?: boolean;
  disabled?: boolean;
  hideLabel?: boolean;
}) {
  const members = useMembers();
  const me = useAssignableMe();
  const people = members.data?.users ?? [];
  // A value outside the list (a user not loaded, or disabled since) still shows as itself.
  const unknown = value !== '' && value !== 'none' && value !== 'me' && !people.some((person) => person.id === value);
  return (
    <label className={hideLabel ? 'picker' : 'field'}>
      <span className={hideLabel ? 'visually-hidden' : 'field-label'}>{label}</span>
      <select aria-label={label} value={value} disabled={disabled} onChange={(event) => onChange(event.target.value)}>
        {anyLabel !== undefined && <option value="">{anyLabel}</option>}
        <option value="none">Unassigned</option>
        {withMe && me && <option value="me">Me</option>}
        {unknown && <option value={value}>{value}</option>}
        {members.isPending && <option disabled>Loading people…</option>}
        {members.isError && <option disabled>Could not load people</option>}
        {people.map((person) => (
          <option key={person.id} value={person.id}>
            {person.name === person.email ? person.email : `${person.name} (${person.email})`}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A technique id field with suggestions by id or name; calls onChange with an id, or '' when cleared. */
export function TechniqueInput({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const [typed, setText] = useState(value);
  const listId = useId();
  // A new value from outside (a link, "Clear filters") replaces what the field shows, adjusted while rendering.
  const [shownValue, setShownValue] = useState(value);
  let text = typed;
  if (shownValue !== value) {
    text = value;
    setShownValue(value);
    setText(value);
  }
  const search = useTechniqueSearch(TECHNIQUE_ID.test(text) ? '' : text);
  const commit = (next: string) => {
    const trimmed = next.trim();
    if (trimmed === '') onChange('');
    else if (TECHNIQUE_ID.test(trimmed)) onChange(trimmed.toUpperCase());
  };
  return (
    <label className="field">
      <span className="field-label">Technique</span>
      <input
        type="search"
        aria-label="Technique"
        placeholder="ID or name"
        list={listId}
        value={text}
        size={14}
        onChange={(event) => {
          setText(event.target.value);
          // Picking a suggestion sets the whole id at once: apply it right away.
          if (TECHNIQUE_ID.test(event.target.value.trim()) || event.target.value === '') commit(event.target.value);
        }}
        onBlur={() => commit(text)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit(text);
        }}
      />
      <datalist id={listId}>
        {(search.data?.techniques ?? []).map((technique) => (
          <option key={technique.id} value={technique.id}>
            {technique.parent ? `${technique.parent.name}: ${technique.name}` : technique.name}
          </option>
        ))}
      </datalist>
    </label>
  );
}

const TAG = /^[^\s,]{1,64}$/;

/** Chips with a remove button each, and a field that adds one (Enter or comma). */
export function TagsEditor({
  tags,
  onChange,
  disabled,
}: {
  tags: readonly string[];
  onChange: (tags: string[]) => void;
  disabled?: boolean;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = () => {
    const fresh = text
      .split(/[\s,]+/)
      .map((tag) => tag.trim().toLowerCase())
      .filter((tag) => tag !== '');
    if (fresh.length === 0) return;
    const bad = fresh.find((tag) => !TAG.test(tag));
    if (bad) {
      setError(`"${bad}" is too long (64 characters at most)`);
      return;
    }
    setError(null);
    setText('');
    onChange([...new Set([...tags, ...fresh])]);
  };
  return (
    <div className="tags-editor">
      <ul className="chips" aria-label="Tags">
        {tags.length === 0 && <li className="faint">No tags</li>}
        {tags.map((tag) => (
          <li key={tag} className="tag-chip">
            {tag}
            {!disabled && (
              <button
                type="button"
                className="tag-remove"
                aria-label={`Remove tag ${tag}`}
                onClick={() => onChange(tags.filter((t) => t !== tag))}
              >
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
      {!disabled && (
        <div className="tags-add">
          <input
            type="text"
            aria-label="Add a tag"
            placeholder="Add tag"
            value={text}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' || event.key === ',') {
                event.preventDefault();
                add();
              }
            }}
          />
          <Button small onClick={add} disabled={text.trim() === ''}>
            Add
          </Button>
        </div>
      )}
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}
