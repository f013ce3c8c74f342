// A webhook's delivery log: each delivery's event, status, attempts and the latest attempt's
// answer, latency and error, newest first, with Redeliver (webhooks:write), which sends the same
// event again as a new delivery.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Notice, Time } from '../../components/ui';
import type { WebhookDelivery } from './webhook-types';

const tone = { delivered: 'success', pending: 'warning', failed: 'danger' } as const;

export function WebhookDeliveries({ webhookId, canWrite }: { webhookId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const key = ['webhook-deliveries', webhookId];
  const deliveries = useQuery({
    queryKey: key,
    queryFn: () =>
      api.get<{ deliveries: WebhookDelivery[] }>(`/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries`, {
        query: { limit: 50 },
      }),
    refetchInterval: 5_000,
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      api.post<WebhookDelivery>(
        `/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        {},
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  return (
    <>
      {redeliver.error && <Notice tone="danger">{errorMessage(redeliver.error)}</Notice>}
      <QueryView
        query={deliveries}
        loading="Loading deliveries"
        error="Could not load the delivery log"
        empty={(data) => data.deliveries.length === 0 && 'Nothing delivered yet.'}
      >
        {(data) => (
          <div className="table-wrap">
            <table className="table" aria-label="Deliveries">
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Status</th>
                  <th>Attempts</th>
                  <th>Answer</th>
                  <th>Queued</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((delivery) => (
                  <tr key={delivery.id}>
                    <td>
                      {delivery.event_type}
                      <span className="subline mono">{delivery.event_id}</span>
                    </td>
                    <td>
                      <Badge tone={tone[delivery.status]}>{delivery.status}</Badge>
                      {delivery.last_error && <span className="subline">{delivery.last_error}</span>}
                    </td>
                    <td>{delivery.attempts}</td>
                    <td className="nowrap">
                      {delivery.response_status ?? '–'}
                      {delivery.latency_ms !== null && <span className="subline">{delivery.latency_ms} ms</span>}
                    </td>
                    <td className="nowrap">
                      <Time iso={delivery.created_at} />
                    </td>
                    <td className="nowrap">
                      {canWrite && delivery.status !== 'pending' && (
                        <Button
                          small
                          variant="ghost"
                          disabled={redeliver.isPending}
                          onClick={() => redeliver.mutate(delivery.id)}
                          aria-label={`Redeliver ${delivery.event_type} ${delivery.event_id}`}
                        >
                          Redeliver
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
    </>
  );
}
