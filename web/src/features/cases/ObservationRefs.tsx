// Links to a case's observations by their position in the observation list ("1", "2"), as the
// summary's citations show them; a click jumps to the observation.
export interface ObservationLookup {
  observationIndex: ReadonlyMap<string, { position: number; title: string }>;
  onCite: (observationId: string) => void;
}

export function ObservationRefs({
  ids,
  lookup,
  label,
}: {
  ids: readonly string[];
  lookup: ObservationLookup;
  label: string;
}) {
  return (
    <span className="observation-refs">
      <span className="visually-hidden">{label} </span>
      {ids.map((id) => {
        const known = lookup.observationIndex.get(id);
        return (
          <a
            key={id}
            href={`#obs-${id}`}
            className="citation"
            title={known ? `Observation ${known.position}: ${known.title}` : id}
            onClick={(event) => {
              event.preventDefault();
              lookup.onCite(id);
            }}
          >
            {known ? known.position : id}
          </a>
        );
      })}
    </span>
  );
}
