// What the collector heard in the last 24 hours (GET /v1/collector/diagnostics): each sender by
// User-Agent and address, and the requests it refused by code with the latest example — and, for
// those who may (ingest_keys:write), a button that sends a test record through the collector and
// shows the round trip.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { QueryView } from '../../components/QueryView';
import { Button, Empty, Notice, RefreshButton, Time } from '../../components/ui';
import { formatNumber } from '../../lib/format';
import type { CollectorDiagnostics as Diagnostics, TestRecordResult } from './types';

const diagnosticsKey = ['collector', 'diagnostics'] as const;

/** How the intakes are named where a sender is listed. */
const INTAKES: Record<string, string> = {
  log_sink: '/log_sink',
  otlp: 'OTLP',
  hec: 'Splunk HEC',
  bulk: 'Elasticsearch bulk',
};

export function CollectorDiagnostics() {
  const diagnostics = useQuery({
    queryKey: diagnosticsKey,
    queryFn: () => api.get<Diagnostics>('/v1/collector/diagnostics'),
    refetchInterval: 30_000,
  });
  return (
    <QueryView query={diagnostics} loading="Loading what the collector heard" error="Could not load the diagnostics">
      {(data) => <DiagnosticsView data={data} onRefresh={() => diagnostics.refetch()} />}
    </QueryView>
  );
}

function DiagnosticsView({ data, onRefresh }: { data: Diagnostics; onRefresh: () => Promise<unknown> }) {
  const { can } = useSession();
  return (
    <>
      <div className="url-row">
        {can('ingest_keys:write') && <TestRecordButton />}
        <RefreshButton onRefresh={onRefresh} />
      </div>
      <h3>Senders</h3>
      {data.senders.length === 0 ? (
        <Empty>No forwarder has sent records in the last 24 hours.</Empty>
      ) : (
        <table className="table" aria-label="Senders in the last 24 hours">
          <thead>
            <tr>
              <th scope="col">Forwarder (User-Agent)</th>
              <th scope="col">Intake</th>
              <th scope="col">Address</th>
              <th scope="col">Requests</th>
              <th scope="col">Records</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {data.senders.map((sender) => (
              <tr key={`${sender.protocol}\u0000${sender.user_agent}\u0000${sender.source_address}`}>
                <td>{sender.user_agent === '' ? <span className="muted">(none sent)</span> : sender.user_agent}</td>
                <td>{INTAKES[sender.protocol] ?? sender.protocol}</td>
                <td>
                  <code>{sender.source_address}</code>
                </td>
                <td>{formatNumber(sender.requests)}</td>
                <td>{formatNumber(sender.records)}</td>
                <td>
                  <Time iso={sender.last_seen_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Refused requests</h3>
      {data.rejections.length === 0 ? (
        <Empty>No request was refused in the last 24 hours.</Empty>
      ) : (
        <table className="table" aria-label="Refused requests in the last 24 hours">
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col">Count</th>
              <th scope="col">Latest</th>
              <th scope="col">From</th>
              <th scope="col">What was wrong</th>
            </tr>
          </thead>
          <tbody>
            {data.rejections.map((rejection) => (
              <tr key={rejection.code}>
                <td>
                  <code>{rejection.code}</code>
                </td>
                <td>{formatNumber(rejection.count)}</td>
                <td>
                  <Time iso={rejection.last_at} />
                </td>
                <td>
                  <code>{rejection.last_source_address}</code>
                  {rejection.last_user_agent !== '' && <span className="muted"> ({rejection.last_user_agent})</span>}
                </td>
                <td>{rejection.last_detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function TestRecordButton() {
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: () => api.post<TestRecordResult>('/v1/collector/test-record'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['collector'] }),
  });
  const result = send.data;
  return (
    <>
      <Button variant="primary" small onClick={() => send.mutate()} disabled={send.isPending}>
        {send.isPending ? 'Sending…' : 'Send a test record'}
      </Button>
      <div aria-live="polite">
        {send.isError && <Notice tone="danger">The test could not run: {errorMessage(send.error)}</Notice>}
        {result &&
          (result.stored ? (
            <Notice tone="success">
              Stored as record {result.record_id} in {result.round_trip_ms} ms through {result.collector_url}.
            </Notice>
          ) : (
            <Notice tone="danger">
              The collector answered {result.status}: {result.detail ?? 'the record was not stored'}.
            </Notice>
          ))}
      </div>
    </>
  );
}
